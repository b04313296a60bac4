// Scale to zero and back, end to end on `modelplane dev` (docs/autoscaling.md, "Scale to zero" and "Scale from
// zero"): examples/autoscaling/scale-to-zero.yaml with a 10 s retention window in the scale-to-zero ConfigMap,
// the saturation engine, the simulated KEDA evaluating the ScaledObject's triggers against dev's Prometheus
// (the simulated one: nothing to install), and the gateway holding requests for a model at zero.
// What must hold: an idle model keeps its replica for its whole window, then goes to 0; a request held at the
// gateway wakes it and is answered; while requests run or wait on its replica it does not go to zero; and it
// goes to zero again only a whole window after the last answer, never earlier.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { queryPrometheus } from '@modelplane/runtime/prometheus';
import { SIM_GATEWAY } from '@modelplane/sim/cluster';
import { ScaledObjects, SimPods } from '@modelplane/sim/operators';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { AutoscaledDeployments, VariantAutoscalings } from '../../src/controllers/llmd/kinds.ts';
import {
  applyScaleToZeroExample,
  decisionSink,
  type LoggedDecision,
  SCALE_TO_ZERO_EXAMPLE,
  setOptimizationInterval,
} from '../helpers/autoscaling.ts';
import { waitFor } from '../helpers/wait.ts';

const { namespace: NS, name: NAME, model: MODEL } = SCALE_TO_ZERO_EXAMPLE;
const WINDOW_S = 10;
const Gateways = kindRef<KubeObject & { status?: { addresses?: Array<{ type?: string; value: string }> } }>(
  'gateway.networking.k8s.io/v1',
  'Gateway',
);

describe('scale to zero after the retention window, and back from zero through the gateway', {
  timeout: 600_000,
}, () => {
  let dev: DevCluster;
  let base: string;
  const logged: LoggedDecision[] = [];
  /** this variant's logged decisions */
  const mine = () => logged.filter((d) => d.variantAutoscaling === `${NS}/${NAME}`);
  const samples: Array<{ t: number; desired?: number; replicas?: number }> = [];
  let sampler: NodeJS.Timeout | undefined;
  const started = Date.now();
  const desired = async () =>
    (await dev.manager.client.get(VariantAutoscalings, NAME, NS)).status?.desiredOptimizedAlloc?.numReplicas;
  const replicas = async () => (await dev.manager.client.get(AutoscaledDeployments, NAME, NS)).spec?.replicas;
  const zeroDecisions = () => mine().filter((d) => d.to === 0);
  const chat = (content: string, maxTokens: number) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: maxTokens }),
      signal: AbortSignal.timeout(180_000),
    });

  before(async () => {
    delete process.env.PROMETHEUS_BASE_URL;
    // the simulated Prometheus, installed or not: the same figures on every machine
    process.env.MODELPLANE_PROMETHEUS = 'simulated';
    dev = await startDevCluster({
      port: 0,
      log: new Logger({}, 'info', decisionSink(logged)),
      prometheus: true,
      sets: [autoscalerControllerSet()],
    });
    const client = dev.manager.client.withFieldManager('scale-to-zero-e2e');
    await setOptimizationInterval(client, '1s');
    // 1 token a second, one sequence at a time: a request lasts its max_tokens in seconds, a second one waits
    const scaledObject = await applyScaleToZeroExample(client, {
      windowSeconds: WINDOW_S,
      prometheusUrl: process.env.PROMETHEUS_BASE_URL!,
      capacity: '{"maxNumSeqs": 1, "numGpuBlocks": 64, "decodeTokensPerSecond": 1}',
      keda: { pollingInterval: 1, cooldownPeriod: 5, initialCooldownPeriod: WINDOW_S },
    });
    const gateway = await waitFor(
      'the Gateway address',
      async () =>
        (await dev.manager.client.getOrUndefined(Gateways, SIM_GATEWAY.name, SIM_GATEWAY.namespace))?.status
          ?.addresses?.[0],
    );
    base = `http://${gateway.type === 'IPAddress' ? `${gateway.value}:80` : gateway.value}`;
    // KEDA acts once the engine has published its first decision, so the new ScaledObject sees it
    await waitFor(
      'the first decision (1) in the VariantAutoscaling and in Prometheus',
      async () =>
        (await desired()) === 1 &&
        Number(
          (
            await queryPrometheus(
              { baseUrl: process.env.PROMETHEUS_BASE_URL! },
              `sum(wva_desired_replicas{variant_name="${NAME}",namespace="${NS}"})`,
            )
          )[0]?.value[1],
        ) === 1,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    await client.apply(scaledObject);
    sampler = setInterval(async () => {
      try {
        samples.push({ t: (Date.now() - started) / 1000, desired: await desired(), replicas: await replicas() });
      } catch {
        // a read failed under load: the next tick samples again
      }
    }, 250);
  });

  after(async () => {
    clearInterval(sampler);
    const last = await replicas().catch(() => undefined);
    samples.push({ t: (Date.now() - started) / 1000, replicas: last });
    const steps = samples.filter((s, i) => i === 0 || s.replicas !== samples[i - 1]!.replicas);
    process.stderr.write(
      `scale to zero: replicas ${steps.map((s) => `${s.replicas}@${s.t.toFixed(1)}s`).join(' → ')}; decisions ${mine()
        .map((d) => `${d.from}→${d.to} (${d.action}) @${((d.at - started) / 1000).toFixed(1)}s`)
        .join(', ')}\n`,
    );
    await dev?.stop();
  });

  it('the idle model keeps its replica for its whole window, then goes to 0 (the decision, then KEDA)', async () => {
    await waitFor(
      'KEDA active on the decision',
      async () =>
        (
          (await dev.manager.client.get(ScaledObjects, NAME, NS)).status as {
            conditions?: Array<{ type: string; status: string }>;
          }
        )?.conditions?.some((c) => c.type === 'Active' && c.status === 'True'),
      { timeoutMs: 60_000 },
    );
    const pod = (await dev.manager.client.list(SimPods, { namespace: NS })).items[0]!;
    const podCreated = Date.parse(pod.metadata.creationTimestamp!);
    await waitFor('the Deployment at 0', async () => (await replicas()) === 0, {
      timeoutMs: 120_000,
      intervalMs: 250,
      detail: async () => ({
        scaledObject: (await dev.manager.client.get(ScaledObjects, NAME, NS)).status,
        events: (
          await dev.manager.client.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: NS })
        ).items.map((e: unknown) => `${(e as { reason: string }).reason}: ${(e as { message: string }).message}`),
      }),
    });
    const zero = zeroDecisions()[0];
    assert.ok(zero, `a logged decision to 0; decisions: ${JSON.stringify(mine())}`);
    assert.equal(zero.action, 'scale-to-zero');
    assert.match(zero.reason, new RegExp(`the last ${WINDOW_S}s`));
    // the engine saw the pod's metrics no earlier than the pod existed: a whole window must lie in between
    assert.ok(
      zero.at - podCreated >= WINDOW_S * 1000,
      `decided 0 ${((zero.at - podCreated) / 1000).toFixed(1)} s after the pod was created; the window is ${WINDOW_S} s`,
    );
    assert.equal(await desired(), 0);
    process.stderr.write(
      `scale to zero: decided 0 ${((zero.at - podCreated) / 1000).toFixed(1)} s after the pod was created (window ${WINDOW_S} s)\n`,
    );
  });

  it('a request held at the gateway wakes the model and is answered; requests running or waiting on its replica keep it up; it goes to 0 again a whole window after the last answer', async () => {
    const zerosBefore = zeroDecisions().length;
    // two requests at once: the first runs 6 s, the second waits for it (maxNumSeqs 1), then runs 6 s
    const sent = Date.now();
    const answers = [chat('wake up', 6), chat('and me', 6)].map(async (r) => {
      const res = await r;
      const body = await res.text();
      return { status: res.status, body, at: Date.now() };
    });
    await waitFor('woken: the Deployment at 1', async () => (await replicas()) === 1, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    const done = await Promise.all(answers);
    for (const a of done) {
      assert.equal(a.status, 200, a.body);
      assert.ok((JSON.parse(a.body) as { choices?: unknown[] }).choices?.length, a.body);
    }
    const lastAnswer = Math.max(...done.map((a) => a.at));
    assert.ok(lastAnswer - sent >= 12_000, 'the two requests ran one after the other, 6 s each');
    // whichever wakes it first (the scale-from-zero loop, or KEDA on the gateway-queue trigger), the decision
    // becomes 1 and is logged, so KEDA does not take it back to 0 while its replica starts
    const wake = mine().find((d) => d.at >= sent && d.from === 0 && d.to === 1);
    assert.ok(wake, `a logged decision 0 → 1 after the requests; decisions: ${JSON.stringify(mine())}`);
    const trajectory = samples.filter((s) => s.t * 1000 + started >= sent && s.t * 1000 + started <= lastAnswer);
    assert.deepEqual(
      [...new Set(trajectory.map((s) => s.replicas).filter((r) => r !== 0))],
      [1],
      'woken once: from 0 to 1, never back to 0 while the requests wait or run',
    );
    assert.equal(
      trajectory.findIndex((s, i) => i > 0 && s.replicas === 0 && trajectory[i - 1]!.replicas === 1),
      -1,
      `no 1 → 0 between the first request and the last answer: ${trajectory.map((s) => s.replicas).join('')}`,
    );
    assert.equal(zeroDecisions().length, zerosBefore, 'no decision to 0 while the requests ran or waited');
    await waitFor('back at 0', async () => (await replicas()) === 0, { timeoutMs: 120_000, intervalMs: 250 });
    const again = zeroDecisions()[zerosBefore];
    assert.ok(again, 'a second decision to 0');
    assert.ok(
      again.at - lastAnswer >= WINDOW_S * 1000,
      `decided 0 ${((again.at - lastAnswer) / 1000).toFixed(1)} s after the last answer; the window is ${WINDOW_S} s`,
    );
    process.stderr.write(
      `scale to zero: woken and answered ${((done[0]!.at - sent) / 1000).toFixed(1)} s after the first request; 0 again ${((again.at - lastAnswer) / 1000).toFixed(1)} s after the last answer (window ${WINDOW_S} s)\n`,
    );
  });
});

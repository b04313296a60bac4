// The scale-to-zero scenario both backends run (docs/autoscaling.md, "Scale to zero"): the simulated KEDA in
// `modelplane dev` (test/e2e/autoscaling-scale-to-zero.test.ts) and the real KEDA with kube-controller-manager
// (test/real/keda-autoscaling.test.ts). examples/autoscaling/scale-to-zero.yaml with a short retention window;
// an idle model keeps its replica for the whole window, then goes to 0; two requests held at the gateway wake
// it and are answered; while they run or wait it never goes back to 0; the next 0 comes a whole window after
// the last answer, never earlier. The timings are read from the engine's logged decisions.
import assert from 'node:assert/strict';
import type { KubeClient } from '@modelplane/runtime/client';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { queryPrometheus } from '@modelplane/runtime/prometheus';
import { SIM_GATEWAY } from '@modelplane/sim/cluster';
import { ScaledObjects, SimPods } from '@modelplane/sim/operators';
import { AutoscaledDeployments, VariantAutoscalings } from '../../src/controllers/llmd/kinds.ts';
import { applyScaleToZeroExample, type LoggedDecision, SCALE_TO_ZERO_EXAMPLE } from './autoscaling.ts';
import { waitFor } from './wait.ts';

const { namespace: NS, name: NAME, model: MODEL } = SCALE_TO_ZERO_EXAMPLE;
const Gateways = kindRef<KubeObject & { status?: { addresses?: Array<{ type?: string; value: string }> } }>(
  'gateway.networking.k8s.io/v1',
  'Gateway',
);

export interface ScaleToZeroOptions {
  windowSeconds: number;
  prometheusUrl: string;
  /** a word for the printed figures, e.g. "dev" or "real KEDA" */
  label: string;
}

export class ScaleToZeroScenario {
  private base = '';
  private readonly samples: Array<{ t: number; desired?: number; replicas?: number }> = [];
  private sampler: NodeJS.Timeout | undefined;
  private readonly started = Date.now();

  /** `client`: admin; `logged`: every `scaling decision` line of the run (decisionSink) */
  constructor(
    private readonly client: KubeClient,
    private readonly logged: readonly LoggedDecision[],
    private readonly o: ScaleToZeroOptions,
  ) {}

  private mine = () => this.logged.filter((d) => d.variantAutoscaling === `${NS}/${NAME}`);
  private zeroDecisions = () => this.mine().filter((d) => d.to === 0);
  private desired = async () =>
    (await this.client.get(VariantAutoscalings, NAME, NS)).status?.desiredOptimizedAlloc?.numReplicas;
  private replicas = async () => (await this.client.get(AutoscaledDeployments, NAME, NS)).spec?.replicas;
  private say = (what: string) => process.stderr.write(`scale to zero (${this.o.label}): ${what}\n`);

  /** the example without its ScaledObject, the first decision published, then the ScaledObject */
  async setUp(): Promise<void> {
    const client = this.client.withFieldManager('scale-to-zero-e2e');
    // 1 token a second, one sequence at a time: a request lasts its max_tokens in seconds, a second one waits
    const scaledObject = await applyScaleToZeroExample(client, {
      windowSeconds: this.o.windowSeconds,
      prometheusUrl: this.o.prometheusUrl,
      capacity: '{"maxNumSeqs": 1, "numGpuBlocks": 64, "decodeTokensPerSecond": 1}',
      keda: { pollingInterval: 1, cooldownPeriod: 5, initialCooldownPeriod: this.o.windowSeconds },
    });
    const gateway = await waitFor(
      'the Gateway address',
      async () =>
        (await this.client.getOrUndefined(Gateways, SIM_GATEWAY.name, SIM_GATEWAY.namespace))?.status?.addresses?.[0],
      { timeoutMs: 60_000 },
    );
    this.base = `http://${gateway.type === 'IPAddress' ? `${gateway.value}:80` : gateway.value}`;
    // KEDA acts once the engine has published its first decision, so the new ScaledObject sees it
    const gauge = `sum(wva_desired_replicas{variant_name="${NAME}",namespace="${NS}"})`;
    await waitFor(
      'the first decision (1) in the VariantAutoscaling and in Prometheus',
      async () =>
        (await this.desired()) === 1 &&
        Number((await queryPrometheus({ baseUrl: this.o.prometheusUrl }, gauge))[0]?.value[1]) === 1,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    await client.apply(scaledObject);
    this.sampler = setInterval(async () => {
      try {
        const t = (Date.now() - this.started) / 1000;
        this.samples.push({ t, desired: await this.desired(), replicas: await this.replicas() });
      } catch {
        // a read failed under load: the next tick samples again
      }
    }, 250);
  }

  async stop(): Promise<void> {
    clearInterval(this.sampler);
    const last = await this.replicas().catch(() => undefined);
    this.samples.push({ t: (Date.now() - this.started) / 1000, replicas: last });
    const steps = this.samples.filter((s, i) => i === 0 || s.replicas !== this.samples[i - 1]!.replicas);
    const at = (ms: number) => `${((ms - this.started) / 1000).toFixed(1)}s`;
    this.say(
      `replicas ${steps.map((s) => `${s.replicas}@${s.t.toFixed(1)}s`).join(' → ')}; decisions ${this.mine()
        .map((d) => `${d.from}→${d.to} (${d.action}) @${at(d.at)}`)
        .join(', ')}`,
    );
  }

  /** the idle model keeps its replica for a whole window after its pod was created, then the decision and KEDA take it to 0 */
  async idleToZero(): Promise<void> {
    const w = this.o.windowSeconds;
    await waitFor(
      'KEDA active on the decision',
      async () =>
        (
          (await this.client.get(ScaledObjects, NAME, NS)).status as {
            conditions?: Array<{ type: string; status: string }>;
          }
        )?.conditions?.some((c) => c.type === 'Active' && c.status === 'True'),
      { timeoutMs: 60_000 },
    );
    const pod = (await this.client.list(SimPods, { namespace: NS })).items[0]!;
    const podCreated = Date.parse(pod.metadata.creationTimestamp!);
    await waitFor('the Deployment at 0', async () => (await this.replicas()) === 0, {
      timeoutMs: 120_000,
      intervalMs: 250,
      detail: async () => ({
        scaledObject: (await this.client.get(ScaledObjects, NAME, NS)).status,
        events: (await this.client.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: NS })).items.map(
          (e: unknown) => `${(e as { reason: string }).reason}: ${(e as { message: string }).message}`,
        ),
      }),
    });
    const zero = this.zeroDecisions()[0];
    assert.ok(zero, `a logged decision to 0; decisions: ${JSON.stringify(this.mine())}`);
    assert.equal(zero.action, 'scale-to-zero');
    assert.match(zero.reason, new RegExp(`the last ${w}s`));
    // the engine saw the pod's metrics no earlier than the pod existed: a whole window must lie in between
    const after = (zero.at - podCreated) / 1000;
    assert.ok(after >= w, `decided 0 ${after.toFixed(1)} s after the pod was created; the window is ${w} s`);
    assert.equal(await this.desired(), 0);
    this.say(`decided 0 ${after.toFixed(1)} s after the pod was created (window ${w} s)`);
  }

  /** two requests at the gateway wake the model and are answered; it stays up while they run or wait; 0 again a window after */
  async wakeAndZeroAgain(): Promise<void> {
    const w = this.o.windowSeconds;
    const zerosBefore = this.zeroDecisions().length;
    // two requests at once: the first runs 6 s, the second waits for it (maxNumSeqs 1), then runs 6 s
    const sent = Date.now();
    const answers = ['wake up', 'and me'].map(async (content) => {
      const res = await fetch(`${this.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 6 }),
        signal: AbortSignal.timeout(180_000),
      });
      return { status: res.status, body: await res.text(), at: Date.now() };
    });
    await waitFor('woken: the Deployment at 1', async () => (await this.replicas()) === 1, {
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
    const wake = this.mine().find((d) => d.at >= sent && d.from === 0 && d.to === 1);
    assert.ok(wake, `a logged decision 0 → 1 after the requests; decisions: ${JSON.stringify(this.mine())}`);
    const during = this.samples
      .filter((s) => s.t * 1000 + this.started >= sent && s.t * 1000 + this.started <= lastAnswer)
      .map((s) => s.replicas);
    assert.ok(
      !during.some((r, i) => i > 0 && r === 0 && during[i - 1] === 1) && !during.some((r) => (r ?? 0) > 1),
      `woken once, 0 → 1, never back to 0 while the requests wait or run: ${during.join('')}`,
    );
    assert.equal(this.zeroDecisions().length, zerosBefore, 'no decision to 0 while the requests ran or waited');
    await waitFor('back at 0', async () => (await this.replicas()) === 0, { timeoutMs: 120_000, intervalMs: 250 });
    const again = this.zeroDecisions()[zerosBefore];
    assert.ok(again, 'a second decision to 0');
    const after = (again.at - lastAnswer) / 1000;
    assert.ok(after >= w, `decided 0 ${after.toFixed(1)} s after the last answer; the window is ${w} s`);
    this.say(
      `woken and answered ${((done[0]!.at - sent) / 1000).toFixed(1)} s after the first request; 0 again ${after.toFixed(1)} s after the last answer (window ${w} s)`,
    );
  }
}

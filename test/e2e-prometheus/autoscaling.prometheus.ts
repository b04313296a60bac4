// The saturation autoscaler's closed loop as a behaviour spec, on `modelplane dev` with a real Prometheus (run
// by `npm run test:prometheus` after scripts/setup-prometheus.sh): examples/autoscaling/variant.yaml applied
// unchanged; a fixed load of 14 clients from the load generator over the Service's endpoints → KV cache and
// queues grow → desired replicas go up → the simulated HPA scales the Deployment → the new pods' metrics
// reach Prometheus through its Kubernetes service discovery → the load spreads → the load ends → back to 1.
// What must hold, in each of two runs (docs/autoscaling.md, "The closed loop"): desired reaches at least 3
// during the load; it never rises while no request is in flight; it rises, then falls, and never rises again;
// it returns to min (1) after; and the second run's trajectory matches the first within one step. The first
// run is the plot of docs/autoscaling.md (test-artifacts/, and docs/ when MODELPLANE_DOCS_PLOT=1).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runKubectl } from '@modelplane/apiserver/testing';
import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { queryPrometheus } from '@modelplane/runtime/prometheus';
import { SIM_GATEWAY } from '@modelplane/sim/cluster';
import { runLoad } from '@modelplane/sim/inference';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { serviceTargets } from '../../src/cli/load/command.ts';
import { type Autoscaler, autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { AutoscaledDeployments, VariantAutoscalings } from '../../src/controllers/llmd/kinds.ts';
import { waitFor } from '../helpers/wait.ts';

const Gateways = kindRef<KubeObject & { status?: { addresses?: Array<{ type?: string; value: string }> } }>(
  'gateway.networking.k8s.io/v1',
  'Gateway',
);

import { type Sample, writePlot } from './plot.ts';
import { isUnimodal, levels, risesWhileIdle, trajectoryMismatches } from './trajectory.ts';

const NS = 'llm-autoscaling';
const NAME = 'llama-8b-h100';
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const CLIENTS = 14;
const LOAD_MS = 75_000;
/** one scrape interval (2 s) + one sampling tick + one load-generator progress tick, with a second to spare */
const IDLE_GRACE_S = 5;
/** two runs match when each point of one has a point of the other within one step of replicas and this much time */
const TIME_SLACK_S = 8;

describe('saturation autoscaling with a real Prometheus: the closed-loop behaviour spec', () => {
  let dev: DevCluster;
  let autoscaler: Autoscaler | undefined;
  let kubeconfig: string;
  const runs: Sample[][] = [];
  const prometheus = () => ({ baseUrl: process.env.PROMETHEUS_BASE_URL ?? '' });
  const kubectl = async (args: string[], input?: string) => {
    const r = await runKubectl(['--kubeconfig', kubeconfig, ...args], input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const deployment = () => dev.manager.client.get(AutoscaledDeployments, NAME, NS);
  const desired = async () =>
    (await dev.manager.client.get(VariantAutoscalings, NAME, NS)).status?.desiredOptimizedAlloc?.numReplicas;
  const reason = () => autoscaler?.decisions.latest(NS, NAME)?.reason;
  const scalar = async (q: string) => Number((await queryPrometheus(prometheus(), q))[0]?.value[1] ?? 0);

  before(async () => {
    delete process.env.PROMETHEUS_BASE_URL;
    dev = await startDevCluster({
      port: 0,
      log: new Logger({}, 'silent'),
      prometheus: true,
      sets: [autoscalerControllerSet({}, (a) => (autoscaler = a))],
    });
    assert.ok(process.env.PROMETHEUS_BASE_URL, 'Prometheus runs (scripts/setup-prometheus.sh installs it)');
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'autoscaling-e2e-')), 'kubeconfig');
    dev.server.writeKubeconfig(kubeconfig);
    await kubectl(
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: workload-variant-autoscaler-variantautoscaling-config, namespace: workload-variant-autoscaler-system}\ndata: {GLOBAL_OPT_INTERVAL: 3s}\n`,
    );
    await kubectl(['apply', '-f', 'examples/autoscaling/variant.yaml']);
  });

  after(async () => {
    mkdirSync('test-artifacts', { recursive: true });
    for (const [i, samples] of runs.entries()) {
      if (samples.length < 3) continue;
      writeFileSync(`test-artifacts/autoscaling-closed-loop-run${i + 1}.json`, JSON.stringify(samples));
      const png = writePlot(
        samples,
        `Saturation autoscaling in modelplane dev, ${CLIENTS} clients (shaded) → scale up → load off → scale down`,
        i === 0 ? 'test-artifacts/autoscaling-closed-loop' : `test-artifacts/autoscaling-closed-loop-run${i + 1}`,
      );
      if (i === 0 && png && process.env.MODELPLANE_DOCS_PLOT === '1')
        copyFileSync(png, 'docs/autoscaling-closed-loop.png');
    }
    await dev?.stop();
  });

  /** one run: at rest → fixed load → load ends → back at rest; sampled every second from the load's start */
  async function scenario(): Promise<{ samples: Sample[]; targets: number }> {
    const samples: Sample[] = [];
    const load = { on: false, inFlight: 0 };
    const t0 = Date.now();
    const sample = async () => {
      try {
        const d = await deployment();
        const kv = await scalar(`avg(vllm:kv_cache_usage_perc{namespace="${NS}"})`).catch(() => 0);
        samples.push({
          t: (Date.now() - t0) / 1000,
          desired: (await desired()) ?? d.spec?.replicas ?? 0,
          replicas: d.spec?.replicas ?? 0,
          ready: d.status?.readyReplicas ?? 0,
          inFlight: load.inFlight,
          kvCacheUsage: kv,
          loadOn: load.on,
          ...(reason() ? { reason: reason() } : {}),
        });
      } catch {
        // a read failed under load: the next tick samples again
      }
    };
    await sample(); // at rest, before the first request
    load.on = true;
    const sampler = setInterval(() => void sample(), 1_000);
    try {
      const summary = await runLoad({
        targets: () => serviceTargets(dev.manager.client, NS, NAME),
        model: MODEL,
        concurrency: CLIENTS,
        durationMs: LOAD_MS,
        maxTokens: 64,
        onProgress: (p) => (load.inFlight = p.inFlight),
      });
      load.on = false;
      load.inFlight = 0;
      assert.ok(summary.ok > 0, `the load generator got answers: ${JSON.stringify(summary)}`);
      process.stderr.write(
        `closed loop (dev): load ${JSON.stringify({ ok: summary.ok, errors: summary.errors, targets: summary.targets, lastError: summary.lastError })}\n`,
      );
      await waitFor(
        'desired back to 1 and the Deployment at 1 ready replica',
        async () =>
          (await desired()) === 1 &&
          (await deployment()).spec?.replicas === 1 &&
          (await deployment()).status?.readyReplicas === 1,
        { timeoutMs: 300_000, intervalMs: 1_000 },
      );
      await sample();
      return { samples, targets: summary.targets };
    } finally {
      clearInterval(sampler);
    }
  }

  /** what each run must show on its own */
  function assertBehaviour(samples: Sample[], targets: number, run: number): void {
    const during = samples.filter((s) => s.loadOn);
    const peak = Math.max(...during.map((s) => s.desired));
    const path = levels(samples);
    const reasons = [...new Set(during.map((s) => s.reason?.replace(/[\d.]+/g, '#')))].join('\n  ');
    assert.ok(
      peak >= 3,
      `run ${run}: desired reached ${peak} under ${CLIENTS} clients; want >= 3 (path ${path}); the engine said:\n  ${reasons}`,
    );
    const idleRises = risesWhileIdle(samples, IDLE_GRACE_S);
    assert.deepEqual(
      idleRises.map((s) => `t=${s.t.toFixed(1)}s desired ${s.desired}`),
      [],
      `run ${run}: desired rose with no request in flight for over ${IDLE_GRACE_S}s`,
    );
    assert.ok(isUnimodal(path), `run ${run}: desired must rise, then fall, never rise again; it went ${path}`);
    assert.equal(samples.at(-1)?.desired, 1, `run ${run}: back to min`);
    assert.equal(path[0], 1, `run ${run}: started at rest`);
    assert.ok(targets >= 2, `run ${run}: the load spread over ${targets} endpoints`);
  }

  it('discovers the first pod through service discovery and decides 1 replica at rest', async () => {
    await waitFor(
      'one ready pod and its vLLM metrics in Prometheus',
      async () => (await scalar(`count(vllm:kv_cache_usage_perc{namespace="${NS}",model_name="${MODEL}"})`)) === 1,
      { timeoutMs: 60_000 },
    );
    await waitFor('a first decision of 1 replica', async () => (await desired()) === 1, { timeoutMs: 30_000 });
    assert.ok(autoscaler?.decisions.latest(NS, NAME), 'the decision store of the running autoscaler has it');
  });

  it(`run 1: ${CLIENTS} clients take desired to >= 3, it never rises with nothing in flight, and returns to 1`, async () => {
    const { samples, targets } = await scenario();
    runs.push(samples);
    assertBehaviour(samples, targets, 1);
    const events = await kubectl([
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'reason=ScaleUp',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.match(events, /scale-up trigger fired/);
    const va = await dev.manager.client.get(VariantAutoscalings, NAME, NS);
    assert.equal(va.status?.conditions?.find((c) => c.type === 'MetricsAvailable')?.status, 'True');
  });

  it('run 2: the same behaviour, and the same replica trajectory as run 1 within one step', async () => {
    assert.equal(runs.length, 1, 'run 1 recorded');
    const { samples, targets } = await scenario();
    runs.push(samples);
    assertBehaviour(samples, targets, 2);
    const [a, b] = [runs[0]!, samples];
    const mismatches = [...trajectoryMismatches(a, b, TIME_SLACK_S), ...trajectoryMismatches(b, a, TIME_SLACK_S)];
    assert.deepEqual(
      mismatches.map((s) => `t=${s.t.toFixed(1)}s desired ${s.desired}`),
      [],
      `run 1 went ${levels(a)}, run 2 went ${levels(b)}`,
    );
  });

  it('scale from zero: a request held at the gateway wakes the model at 0 replicas and is answered once a pod is Ready', async () => {
    const client = dev.manager.client.withFieldManager('autoscaling-e2e');
    await client.apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: NAME, namespace: NS },
      spec: {
        parentRefs: [{ name: SIM_GATEWAY.name, namespace: SIM_GATEWAY.namespace }],
        rules: [{ backendRefs: [{ name: NAME, port: 8000 }] }],
      },
    } as KubeObject);
    const gateway = await dev.manager.client.get(Gateways, SIM_GATEWAY.name, SIM_GATEWAY.namespace);
    const address = gateway.status?.addresses?.[0];
    assert.ok(address?.value, 'the simulated Gateway has an address');
    const base = `http://${address.type === 'IPAddress' ? `${address.value}:80` : address.value}`;
    // the model goes to zero (as KEDA or an operator would take it there); the HPA leaves a target at 0 alone
    await dev.manager.client.patch(AutoscaledDeployments, NAME, NS, { spec: { replicas: 0 } }, 'merge', {
      subresource: 'scale',
    });
    await waitFor('no replica left', async () => ((await deployment()).status?.replicas ?? 0) === 0, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const started = Date.now();
    const answer = fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'wake up' }], max_tokens: 8 }),
      signal: AbortSignal.timeout(150_000),
    });
    await waitFor(
      'the held request in the gateway queue, as Prometheus sees it',
      async () => (await scalar(`sum(inference_extension_flow_control_queue_size{namespace="${NS}"})`)) >= 1,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const res = await answer;
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { choices?: Array<{ message?: { content?: string } }> };
    assert.ok(body.choices?.[0]?.message?.content, 'a completion from the woken replica');
    assert.equal((await deployment()).spec?.replicas, 1);
    const events = await kubectl([
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'reason=ScaledFromZero',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.match(events, /request\(s\) wait at the gateway for model meta-llama\/Llama-3\.1-8B-Instruct/);
    process.stderr.write(`scale from zero: answered after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });
});

// The saturation autoscaler's closed loop on `modelplane dev` with a real Prometheus (run by
// `npm run test:prometheus` after scripts/setup-prometheus.sh): examples/autoscaling/variant.yaml applied
// unchanged; load from the load generator over the Service's endpoints → KV cache and queues grow → the
// autoscaler's desired replicas go up → the simulated HPA scales the Deployment → the new pods' metrics reach
// Prometheus through its Kubernetes service discovery → the load spreads → after the load stops, the
// variant scales back down to 1. Writes the plot of docs/autoscaling.md (test-artifacts/, and docs/ when
// MODELPLANE_DOCS_PLOT=1).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runKubectl } from '@modelplane/apiserver/testing';
import { Logger } from '@modelplane/runtime/log';
import { queryPrometheus } from '@modelplane/runtime/prometheus';
import { runLoad } from '@modelplane/sim/inference';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { serviceTargets } from '../../src/cli/load/command.ts';
import { type Autoscaler, autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { AutoscaledDeployments, VariantAutoscalings } from '../../src/controllers/llmd/kinds.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Sample, writePlot } from './plot.ts';

const NS = 'llm-autoscaling';
const NAME = 'llama-8b-h100';
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

describe('saturation autoscaling closes the loop with a real Prometheus', () => {
  let dev: DevCluster;
  let autoscaler: Autoscaler | undefined;
  let kubeconfig: string;
  const samples: Sample[] = [];
  let sampler: NodeJS.Timeout | undefined;
  const load = { on: false, inFlight: 0 };
  const t0 = Date.now();
  const prometheus = () => ({ baseUrl: process.env.PROMETHEUS_BASE_URL ?? '' });
  const kubectl = async (args: string[], input?: string) => {
    const r = await runKubectl(['--kubeconfig', kubeconfig, ...args], input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const deployment = () => dev.manager.client.get(AutoscaledDeployments, NAME, NS);
  const desired = async () =>
    (await dev.manager.client.get(VariantAutoscalings, NAME, NS)).status?.desiredOptimizedAlloc?.numReplicas;
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
    sampler = setInterval(() => void sample(), 1_000);
  });

  after(async () => {
    clearInterval(sampler);
    mkdirSync('test-artifacts', { recursive: true });
    if (samples.length > 2) {
      const png = writePlot(
        samples,
        'Saturation autoscaling in modelplane dev: load on (shaded) → scale up → load off → scale down',
        'test-artifacts/autoscaling-closed-loop',
      );
      if (png && process.env.MODELPLANE_DOCS_PLOT === '1') copyFileSync(png, 'docs/autoscaling-closed-loop.png');
    }
    await dev?.stop();
  });

  async function sample(): Promise<void> {
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
      });
    } catch {
      // not there yet
    }
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

  it('under load: desired replicas go up, the HPA scales the Deployment, new pods are scraped and the load spreads', async () => {
    load.on = true;
    const run = runLoad({
      targets: () => serviceTargets(dev.manager.client, NS, NAME),
      model: MODEL,
      concurrency: 14,
      durationMs: 80_000,
      maxTokens: 64,
      onProgress: (p) => (load.inFlight = p.inFlight),
    });
    try {
      await waitFor('desired replicas above 1', async () => ((await desired()) ?? 0) >= 2, { timeoutMs: 60_000 });
      await waitFor('the Deployment scaled by the HPA', async () => ((await deployment()).spec?.replicas ?? 0) >= 2, {
        timeoutMs: 30_000,
      });
      await waitFor(
        'the new pods scraped by Prometheus',
        async () => (await scalar(`count(vllm:kv_cache_usage_perc{namespace="${NS}"})`)) >= 2,
        { timeoutMs: 60_000 },
      );
      await waitFor(
        'at least two pods serving requests',
        async () => (await scalar(`count(sum by (pod)(vllm:request_success_total{namespace="${NS}"}) > 0)`)) >= 2,
        { timeoutMs: 60_000 },
      );
    } finally {
      const summary = await run;
      load.on = false;
      load.inFlight = 0;
      assert.ok(summary.ok > 0, `the load generator got answers: ${JSON.stringify(summary)}`);
      assert.ok(summary.targets >= 2, `the load spread over ${summary.targets} endpoints`);
    }
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
  });

  it('after the load stops, the variant scales back down to 1', async () => {
    await waitFor(
      'desired back to 1 and the Deployment at 1 replica',
      async () => (await desired()) === 1 && (await deployment()).spec?.replicas === 1,
      { timeoutMs: 300_000, intervalMs: 1_000 },
    );
    const va = await dev.manager.client.get(VariantAutoscalings, NAME, NS);
    assert.equal(va.status?.conditions?.find((c) => c.type === 'MetricsAvailable')?.status, 'True');
  });
});

// The saturation autoscaler's loop closed on real parts (docs/real-kubernetes.md, "KEDA"): the real control
// plane, a real KEDA (operator + metrics API server, built from its Go module, registered through the API
// aggregation layer), kube-controller-manager's own HPA controller, Debian's Prometheus scraping the
// simulated vLLM pods and the operator's /metrics. KEDA turns a ScaledObject on wva_desired_replicas into an
// HPA; the load generator drives the replicas up and its end drives them down; every change of the
// Deployment's replicas follows a decision the engine logged. Then the scale-to-zero scenario
// (test/helpers/scale-to-zero.ts) on the same parts: idle → 0 after the window, woken from the gateway, 0 again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { missingKeda, type RealControlPlane, realOnly } from '@modelplane/apiserver/testing';
import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { runLoad } from '@modelplane/sim/inference';
import { parseAllDocuments } from 'yaml';
import type { DevCluster } from '../../src/cli/dev/cluster.ts';
import { startRealDevCluster } from '../../src/cli/dev/real-cluster.ts';
import { serviceTargets } from '../../src/cli/load/command.ts';
import { autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { AutoscaledDeployments, VariantAutoscalings } from '../../src/controllers/llmd/kinds.ts';
import { decisionSink, type LoggedDecision, setOptimizationInterval } from '../helpers/autoscaling.ts';
import { ScaleToZeroScenario } from '../helpers/scale-to-zero.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'llm-autoscaling';
const NAME = 'llama-8b-h100';
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const Hpas = kindRef<
  KubeObject & {
    spec?: { metrics?: Array<{ type: string; external?: { metric: { name: string } } }> };
    status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
  }
>('autoscaling/v2', 'HorizontalPodAutoscaler');

describe('the closed loop on real parts: KEDA and kube-controller-manager scale on the engine decisions', {
  ...realOnly(),
  timeout: 900_000,
}, () => {
  let dev: DevCluster<RealControlPlane>;
  const logged: LoggedDecision[] = [];
  const decisions = () => logged.filter((d) => d.variantAutoscaling === `${NS}/${NAME}`);
  const replicaChanges: Array<{ at: number; replicas: number }> = [];
  let watcher: NodeJS.Timeout | undefined;
  let toZero: ScaleToZeroScenario | undefined;

  before(async () => {
    const why = missingKeda();
    assert.equal(why, undefined, why);
    dev = await startRealDevCluster({
      port: 0,
      // the engine's 'scaling decision' lines are the explanation each replica change must have
      log: new Logger({}, 'info', decisionSink(logged)),
      prometheus: true,
      keda: 'real',
      sets: [autoscalerControllerSet()],
      // the HPA controller syncs every 15 s by default; 5 s keeps the run short
      controllerManagerArgs: ['--horizontal-pod-autoscaler-sync-period=5s'],
    });
    assert.ok(process.env.PROMETHEUS_BASE_URL, 'Prometheus runs (scripts/setup-prometheus.sh installs it)');
    const client = dev.manager.client.withFieldManager('keda-e2e');
    await setOptimizationInterval(client, '3s');
    // the variant without its HPA (KEDA makes the HPA here), and the KEDA example pointed at our Prometheus
    for (const doc of parseAllDocuments(readFileSync('examples/autoscaling/variant.yaml', 'utf8'))) {
      const obj = doc.toJS() as KubeObject | null;
      if (obj && obj.kind !== 'HorizontalPodAutoscaler') await client.apply(obj);
    }
    const so = parseAllDocuments(
      readFileSync('examples/autoscaling/keda-scaledobject.yaml', 'utf8'),
    )[0]!.toJS() as KubeObject & {
      spec: Record<string, unknown> & { triggers: Array<{ metadata: Record<string, string> }> };
    };
    so.spec.triggers[0]!.metadata.serverAddress = process.env.PROMETHEUS_BASE_URL!;
    so.spec.pollingInterval = 5;
    so.spec.advanced = {
      horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } },
    };
    await client.apply(so);
    let last: number | undefined;
    watcher = setInterval(async () => {
      const r = (await dev.manager.client.getOrUndefined(AutoscaledDeployments, NAME, NS).catch(() => undefined))?.spec
        ?.replicas;
      if (r !== undefined && r !== last) replicaChanges.push({ at: Date.now(), replicas: r });
      last = r ?? last;
    }, 500);
  });

  after(async () => {
    clearInterval(watcher);
    await toZero?.stop();
    await dev?.stop();
  });

  it('KEDA turns the ScaledObject into an HPA whose External metric kube-controller-manager reads through the aggregation layer', async () => {
    await waitFor(
      'the HPA KEDA made',
      async () => (await dev.manager.client.getOrUndefined(Hpas, `keda-hpa-${NAME}`, NS)) !== undefined,
      {
        timeoutMs: 120_000,
      },
    );
    const hpa = await dev.manager.client.get(Hpas, `keda-hpa-${NAME}`, NS);
    assert.equal(hpa.spec?.metrics?.[0]?.type, 'External');
    await waitFor(
      'ScalingActive=True (the HPA controller got the metric from KEDA through external.metrics.k8s.io)',
      async () =>
        (await dev.manager.client.get(Hpas, `keda-hpa-${NAME}`, NS)).status?.conditions?.some(
          (c) => c.type === 'ScalingActive' && c.status === 'True',
        ) === true,
      { timeoutMs: 180_000, intervalMs: 1_000 },
    );
    await waitFor(
      'a first decision of 1 replica',
      async () =>
        (await dev.manager.client.get(VariantAutoscalings, NAME, NS)).status?.desiredOptimizedAlloc?.numReplicas === 1,
      {
        timeoutMs: 120_000,
      },
    );
  });

  it('load drives the replicas up through KEDA and the HPA; its end drives them back to 1; each change follows a logged decision', async () => {
    const summary = await runLoad({
      targets: () => serviceTargets(dev.manager.client, NS, NAME),
      model: MODEL,
      concurrency: 14,
      durationMs: 90_000,
      maxTokens: 64,
    });
    assert.ok(summary.ok > 0, `the load generator got answers: ${JSON.stringify(summary)}`);
    const peak = Math.max(...replicaChanges.map((c) => c.replicas));
    assert.ok(
      peak >= 2,
      `the Deployment grew under load (changes: ${JSON.stringify(replicaChanges.map((c) => c.replicas))})`,
    );
    await waitFor(
      'back to 1 replica',
      async () => (await dev.manager.client.get(AutoscaledDeployments, NAME, NS)).spec?.replicas === 1,
      {
        timeoutMs: 300_000,
        intervalMs: 1_000,
      },
    );
    await waitFor('the last change recorded', async () => replicaChanges.at(-1)?.replicas === 1);
    // every change of spec.replicas (after the first reading) lands on a count the engine decided before it
    for (const change of replicaChanges.slice(1)) {
      const explained = decisions().some((d) => d.to === change.replicas && d.at <= change.at);
      assert.ok(
        explained,
        `replicas → ${change.replicas} at ${new Date(change.at).toISOString()} has no earlier engine decision to ${change.replicas}; decisions: ${JSON.stringify(decisions().map((d) => `${d.from}→${d.to}`))}`,
      );
    }
    const t0 = replicaChanges[0]?.at ?? Date.now();
    process.stderr.write(
      `closed loop (real KEDA): replicas ${replicaChanges.map((c) => `${c.replicas}@${((c.at - t0) / 1000).toFixed(0)}s`).join(' → ')}; ${decisions().length} logged decisions (${decisions()
        .map((d) => `${d.from}→${d.to}`)
        .join(
          ', ',
        )}); load ${JSON.stringify({ ok: summary.ok, errors: summary.errors, targets: summary.targets, lastError: summary.lastError })}\n`,
    );
    assert.ok(
      decisions().some((d) => d.to > d.from && /scale-up trigger fired/.test(d.reason)),
      'a logged scale-up with its reason',
    );
  });

  // the scale-to-zero scenario of test/e2e/autoscaling-scale-to-zero.test.ts, with the real KEDA and
  // kube-controller-manager (examples/autoscaling/scale-to-zero.yaml, a 10 s window)
  it('scale to zero: the idle model keeps its replica for its whole window, then the decision and the real KEDA take it to 0', async () => {
    toZero = new ScaleToZeroScenario(dev.manager.client, logged, {
      windowSeconds: 10,
      prometheusUrl: process.env.PROMETHEUS_BASE_URL!,
      label: 'real KEDA',
    });
    await toZero.setUp();
    await toZero.idleToZero();
  });

  it('scale from zero: requests held at the gateway wake it through the real KEDA and are answered; 0 again a whole window after the last answer', async () => {
    assert.ok(toZero, 'the previous test set the scenario up');
    await toZero.wakeAndZeroAgain();
  });
});

// Acceptance scenarios of the AIM catalogue kinds (templates, caches, artifacts) on `modelplane dev`'s cluster
// with the whole `aim` controller set, each in its own namespace of one shared cluster (docs/aim.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  AIM_API,
  cond,
  condSummary,
  Kinds,
  kubectlApply,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';

const NAMESPACES = ['cache-no-template', 'min-vram', 'discovery-limit', 'artifact-retry'];
/** a failed download's retry comes this long after the failure (the controller's default is 5 min) */
const RETRY_MS = 3_000;
const DISCOVERY_SELECTOR = 'app.kubernetes.io/name=aim-discovery';

describe('AIM catalogue acceptance scenarios on the dev cluster', { timeout: 240_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;

  before(async () => {
    cluster = await startAimCluster('aim-acceptance-catalog', { namespaces: NAMESPACES, artifactRetryMs: RETRY_MS });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a template cache whose template does not exist: Failed, Ready=False/ReferenceNotFound, ServiceTemplateReady=False/ReferenceNotFound', async () => {
    const ns = 'cache-no-template';
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMTemplateCache',
      metadata: { name: 'failure-service-template-not-found', namespace: ns },
      spec: { templateName: 'not-existing', templateScope: 'Namespace' },
    });
    const c = await waitForObject(
      admin,
      Kinds.Caches,
      'failure-service-template-not-found',
      ns,
      'Failed',
      (c) => c.status?.status === 'Failed',
    );
    assert.equal(condSummary(c, 'Ready'), 'Ready=False/ReferenceNotFound');
    assert.equal(condSummary(c, 'ServiceTemplateReady'), 'ServiceTemplateReady=False/ReferenceNotFound');
    assert.equal((await admin.list(Kinds.Artifacts, { namespace: ns })).items.length, 0, 'no artifact created');
  });

  it('minVram: a template asking for VRAM a node has is Ready with resolvedHardware.gpu {requests: 1, minVram: 64Gi} and GPUReady=True/GPUAvailable; one asking for 1Ti is NotAvailable with GPUReady=False/VRAMNotAvailable', async () => {
    const ns = 'min-vram';
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'test-min-vram-model', namespace: ns },
      spec: { image: QWEN8_IMAGE, discovery: { createServiceTemplates: false } },
    });
    const template = (name: string, minVram: string) => ({
      apiVersion: AIM_API,
      kind: 'AIMServiceTemplate',
      metadata: { name, namespace: ns },
      spec: { modelName: 'test-min-vram-model', hardware: { gpu: { requests: 1, minVram } } },
    });
    await kubectlApply(cluster, template('test-min-vram-template', '64Gi'));
    const t = await waitForObject(
      admin,
      Kinds.Templates,
      'test-min-vram-template',
      ns,
      'Ready',
      (t) => t.status?.status === 'Ready',
    );
    assert.equal(t.status?.resolvedHardware?.gpu?.requests, 1);
    assert.equal(t.status?.resolvedHardware?.gpu?.minVram, '64Gi');
    assert.equal(condSummary(t, 'GPUReady'), 'GPUReady=True/GPUAvailable');
    await kubectlApply(cluster, template('test-min-vram-too-high', '1Ti'));
    const high = await waitForObject(
      admin,
      Kinds.Templates,
      'test-min-vram-too-high',
      ns,
      'NotAvailable',
      (t) => t.status?.status === 'NotAvailable',
    );
    assert.equal(condSummary(high, 'GPUReady'), 'GPUReady=False/VRAMNotAvailable');
  });

  it('at most 10 discovery Jobs run cluster-wide: 15 templates (namespaced and cluster) on cordoned nodes start 10 and report DiscoveryThrottled for the rest; uncordoned, all finish and never more than 10 run at once', async () => {
    const ns = 'discovery-limit';
    const nodes = (await admin.list(Kinds.Nodes)).items.map((n) => n.metadata.name ?? '');
    const cordon = (unschedulable: boolean) =>
      Promise.all(nodes.map((n) => admin.patch(Kinds.Nodes, n, undefined, { spec: { unschedulable } }, 'merge')));
    const activeJobs = async () =>
      (await admin.list(Kinds.Jobs, { labelSelector: DISCOVERY_SELECTOR })).items.filter(
        (j) => !(j.status?.conditions ?? []).some((c: { type: string; status: string }) => c.status === 'True'),
      ).length;
    // the limit is cluster-wide: start from no discovery running (an earlier test's Job may still finish)
    await waitFor('no discovery Job running yet', async () => (await activeJobs()) === 0, { timeoutMs: 60_000 });
    // frozen: cordoned nodes keep every discovery pod Pending, so the Jobs stay active until released
    await cordon(true);
    let maxActive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxActive = Math.max(maxActive, await activeJobs());
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      const model = { image: QWEN8_IMAGE, discovery: { createServiceTemplates: false } };
      await admin.apply({
        apiVersion: AIM_API,
        kind: 'AIMModel',
        metadata: { name: 'm', namespace: ns },
        spec: model,
      });
      await admin.apply({
        apiVersion: AIM_API,
        kind: 'AIMClusterModel',
        metadata: { name: 'limit-m' },
        spec: model,
      });
      const names: Array<[kind: typeof Kinds.Templates, name: string, namespace?: string]> = [];
      for (let i = 0; i < 12; i++) {
        await admin.apply({
          apiVersion: AIM_API,
          kind: 'AIMServiceTemplate',
          metadata: { name: `t${i}`, namespace: ns },
          spec: { modelName: 'm', metric: i % 2 ? 'latency' : 'throughput' },
        });
        names.push([Kinds.Templates, `t${i}`, ns]);
      }
      for (let i = 0; i < 3; i++) {
        await admin.apply({
          apiVersion: AIM_API,
          kind: 'AIMClusterServiceTemplate',
          metadata: { name: `limit-c${i}` },
          spec: { modelName: 'limit-m' },
        });
        names.push([Kinds.ClusterTemplates, `limit-c${i}`]);
      }
      const discoveryReason = async ([kind, name, namespace]: (typeof names)[number]) =>
        cond(await admin.getOrUndefined(kind, name, namespace), 'DiscoveryReady')?.reason as string | undefined;
      // settled: the limit's worth of Jobs runs and every other template reports it is throttled
      const settled = async () => {
        const reasons = await Promise.all(names.map(discoveryReason));
        const running = reasons.filter((r) => r === 'AwaitingDiscovery').length;
        const throttled = reasons.filter((r) => r === 'DiscoveryThrottled').length;
        return { reasons, running, throttled, active: await activeJobs() };
      };
      const state = await waitFor(
        '10 templates running discovery, 5 throttled',
        async () => {
          const s = await settled();
          return s.running === 10 && s.throttled === 5 && s.active === 10 ? s : undefined;
        },
        // the shared machine can be slow: a generous wait on the state itself, never a looser check
        { timeoutMs: 60_000, detail: settled },
      );
      assert.equal(state.active, 10, 'exactly the limit runs');
      await cordon(false);
      await waitFor(
        'all 15 templates Ready',
        async () =>
          (await Promise.all(names.map(([k, n, s]) => admin.getOrUndefined(k, n, s)))).every(
            (t) => t?.status?.status === 'Ready',
          ),
        { timeoutMs: 60_000, detail: async () => ({ reasons: await Promise.all(names.map(discoveryReason)) }) },
      );
    } finally {
      sampling = false;
      await sampler;
      await cordon(false);
    }
    assert.ok(maxActive <= 10, `at most 10 discovery Jobs at once, saw ${maxActive}`);
    assert.equal(maxActive, 10, 'the limit was reached');
  });

  it('a failed download is retried: a gated source without a token is Failed/AuthError; a token added to the runtime config changes its env, so the retry starts without waiting, uses it and succeeds', async () => {
    const ns = 'artifact-retry';
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMArtifact',
      metadata: { name: 'gated', namespace: ns },
      spec: { sourceUri: 'hf://meta-llama/gated-llama', size: '1Gi' },
    });
    const failed = await waitForObject(
      admin,
      Kinds.Artifacts,
      'gated',
      ns,
      'Failed with the cause from the log',
      // on the real control plane the pod's 401 can be read before the Job controller marks the Job failed:
      // the state asserted is the settled one, with the Job's condition saying so too
      (a) =>
        a.status?.status === 'Failed' &&
        cond(a, 'Ready')?.reason === 'AuthError' &&
        cond(a, 'DownloadJobReady')?.status === 'False',
    );
    assert.equal(condSummary(failed, 'Ready'), 'Ready=False/AuthError');
    assert.equal(condSummary(failed, 'AuthValid'), 'AuthValid=False/AuthError');
    assert.match(cond(failed, 'DownloadJobReady')?.message, /401 Client Error: Unauthorized/);
    assert.equal(failed.status?.progress?.displayPercentage, 'N/A');
    assert.equal(failed.status?.downloadAttempt, 1);
    const failedAt = Date.parse(failed.status?.lastFailureTime);
    assert.ok(Number.isFinite(failedAt), 'lastFailureTime recorded');
    // the fix: a namespace-wide token; the download's env changes, so it is tried again at once
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'default', namespace: ns },
      spec: { env: [{ name: 'HF_TOKEN', value: 'hf_test_token' }] },
    });
    const ready = await waitForObject(
      admin,
      Kinds.Artifacts,
      'gated',
      ns,
      'Ready after the retry',
      (a) => a.status?.status === 'Ready',
    );
    assert.equal(ready.status?.downloadAttempt, 2, 'the second attempt');
    assert.equal(ready.status?.progress?.displayPercentage, '100 %');
    assert.equal(ready.status?.lastFailureTime, undefined, 'the failure is cleared');
    assert.equal(condSummary(ready, 'AuthValid'), 'AuthValid=True/AuthenticationValid', 'recovered, and says so');
    const jobs = (await admin.list(Kinds.Jobs, { namespace: ns })).items.filter(
      (j) => j.metadata.labels?.['aim.eai.amd.com/artifact'] === 'gated',
    );
    assert.equal(jobs.length, 1, "the failed attempt's Job was replaced");
    const retried = jobs[0]!;
    assert.ok(
      (retried.spec.template.spec.containers[0].env as Array<{ name: string }>).some((e) => e.name === 'HF_TOKEN'),
      'the retry carries the token from the runtime config',
    );
    // (the retry's timing with an unchanged env, and the immediate one on a changed env, are asserted on a
    // manual clock in test/controllers/aim/artifact-retry.test.ts)
    assert.ok(Number.isFinite(Date.parse(retried.metadata.creationTimestamp ?? '')), 'the retry Job exists');
  });
});

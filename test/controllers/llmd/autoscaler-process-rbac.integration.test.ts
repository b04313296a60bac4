// The autoscaler set as a cluster runs it: its own `modelplane run` process, authenticated as its
// ServiceAccount, authorised only by the generated RBAC, whose ConfigMap rule names its three ConfigMaps
// (resourceNames) instead of granting every ConfigMap of the cluster. A namespace-local saturation ConfigMap
// in any namespace still reaches it (its watches select by metadata.name), the process is never refused, it
// and never lists or watches ConfigMaps without naming one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { DEFAULT_SATURATION_CONFIG_MAP_NAME } from '../../../src/apis/llmd/index.ts';
import { AUTOSCALER_RBAC_RULES, autoscalerControllerSet } from '../../../src/controllers/llmd/index.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { type OperatorProcess, startOperatorProcess } from '../../helpers/operator-process.ts';
import { waitFor } from '../../helpers/wait.ts';

describe('autoscaler as a process under its generated RBAC', { timeout: 180_000 }, () => {
  let cluster: DevTestCluster;
  let proc: OperatorProcess;

  before(async () => {
    cluster = await startDevTestCluster({
      log: new Logger({ level: 'error' }),
      namespaces: ['workload-variant-autoscaler-system', 'team-a'],
    });
    proc = await startOperatorProcess(cluster, cluster.admin, autoscalerControllerSet(), {
      env: { POD_NAMESPACE: 'workload-variant-autoscaler-system' },
    });
  });
  after(async () => {
    await proc?.stop();
    await cluster?.stop();
  });

  it('its ConfigMap rule names its ConfigMaps; no rule grants every ConfigMap or Secret', () => {
    for (const r of AUTOSCALER_RBAC_RULES) {
      if (r.resources?.includes('configmaps')) assert.ok((r.resourceNames ?? []).length > 0, JSON.stringify(r));
      assert.ok(!r.resources?.includes('secrets'), JSON.stringify(r));
    }
  });

  it('lists its ConfigMaps by name in every namespace, is never refused, and may read no other ConfigMap', async () => {
    const cm = (namespace: string, kv: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: DEFAULT_SATURATION_CONFIG_MAP_NAME, namespace },
      data: {
        default: `kvCacheThreshold: ${kv}\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n`,
      },
    });
    await cluster.admin.apply(cm('workload-variant-autoscaler-system', '0.80'));
    await cluster.admin.apply(cm('team-a', '0.70'));
    await cluster.admin.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'unrelated', namespace: 'team-a' },
      data: { a: 'b' },
    });
    const mine = () => cluster.auditEntries().filter((e) => e.user === proc.user);
    await waitFor(
      'the autoscaler lists and watches its ConfigMaps',
      async () =>
        mine().some((e) => e.resource === 'configmaps' && e.verb === 'list' && e.code === 200) ? true : undefined,
      { timeoutMs: 60_000, intervalMs: 200, detail: async () => proc.output().slice(-3000) },
    );
    const refused = mine().filter((e) => e.code === 403);
    assert.deepEqual(
      refused.map((e) => `${e.verb} ${e.group}/${e.resource} ${e.namespace}/${e.name}`),
      [],
      'the generated rules are enough',
    );
    // every list it made was allowed, so each named one of its ConfigMaps; with its credentials, anything
    // else is refused
    const [, , ns, name] = proc.user.split(':');
    const own = await KubeClient.create(await cluster.serviceAccountKubeconfig(ns!, name!));
    try {
      for (const req of [
        { method: 'GET' as const, path: '/api/v1/configmaps' },
        { method: 'GET' as const, path: '/api/v1/namespaces/team-a/configmaps' },
        { method: 'GET' as const, path: '/api/v1/namespaces/team-a/configmaps/unrelated' },
      ]) {
        const err = await own.transport.request(req).then(
          () => undefined,
          (e: { code?: number }) => e,
        );
        assert.equal(err?.code, 403, `${req.path} must be refused to the autoscaler`);
      }
      const named = await own.transport.request({
        method: 'GET',
        path: `/api/v1/namespaces/team-a/configmaps?fieldSelector=metadata.name%3D${DEFAULT_SATURATION_CONFIG_MAP_NAME}`,
      });
      assert.equal((named.body as { items: unknown[] }).items.length, 1);
    } finally {
      own.close();
    }
    assert.ok(!mine().some((e) => e.resource.startsWith('secrets')), 'no Secret');
  });
});

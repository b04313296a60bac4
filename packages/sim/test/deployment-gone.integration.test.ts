// The simulated Deployment controller and a Deployment deleted while it writes: the write answers 404 and
// that ends the pass (no error, no retry, no look again later), instead of retrying a status patch on an
// object that is gone. The second case holds the delete event back, so the controller's cache still has
// the Deployment: any retry would reach the server, and the server's count of status patches shows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, type AuditEntry, startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { registerWorkloadSimulators } from '../src/workloads/index.ts';
import { Deployments, ReplicaSets } from '../src/workloads/kinds.ts';
import { PodLogStore } from '../src/workloads/pod-logs.ts';

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('simulated Deployment controller: a Deployment deleted mid-pass', () => {
  let server: ApiServer;
  let mgr: Manager;
  let admin: KubeClient;
  const audit: AuditEntry[] = [];

  before(async () => {
    server = await startApiServer({ port: 0, auditSink: (e) => audit.push(e) });
    admin = await KubeClient.create(server.kubeconfigYaml(), { fieldManager: 'test' });
    mgr = await Manager.create({ kubeconfig: server.kubeconfigYaml(), logger: new Logger({}, 'silent') });
    registerWorkloadSimulators(mgr, { logs: new PodLogStore(), only: ['deployments'], events: false });
    await mgr.start();
  });
  after(async () => {
    server?.faults.clear();
    await mgr?.stop();
    admin?.close();
    await server?.close();
  });

  const createDeployment = (name: string, replicas: number) =>
    admin.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
  const deploymentController = () =>
    (mgr as unknown as { controllers: Controller[] }).controllers.find((c) => c.name === 'sim-deployment')!;
  const reconcileErrors = async () =>
    (await mgr.metrics.reconcileErrors.get()).values.find((v) => v.labels.controller === 'sim-deployment')?.value ?? 0;
  /** how the controller's reconciles ended so far, by result (success, error, requeue, requeue_after) */
  const results = async () => {
    const out: Record<string, number> = {};
    for (const v of (await mgr.metrics.reconcileTotal.get()).values)
      if (v.labels.controller === 'sim-deployment') out[String(v.labels.result)] = v.value;
    return out;
  };

  it('a 404 on its status write ends the pass: no reconcile error, no retry', async () => {
    const controller = deploymentController();
    // the controller's writes to deployments/status wait, so the Deployment is deleted before they land
    const held = server.faults.add({ verbs: ['patch'], resources: ['deployments/status'], latencyMs: 1500 });
    await createDeployment('doomed', 1);
    // its ReplicaSet exists: the pass is now writing the Deployment's revision or status
    await until(
      'the ReplicaSet',
      async () => (await admin.list(ReplicaSets, { namespace: 'default' })).items.length > 0,
    );
    await admin.delete(Deployments, 'doomed', 'default');
    const statusWrites = () =>
      audit.filter((e) => e.resource === 'deployments/status' && e.name === 'doomed' && e.verb === 'patch');
    await until('the delayed status write to answer 404', () => statusWrites().some((e) => e.code === 404));
    server.faults.remove(held);
    await until('the controller to be idle', () => controller.pendingWork === 0);
    assert.equal(await reconcileErrors(), 0, 'the 404 was reported as a reconcile error');
    assert.deepEqual(
      statusWrites().map((e) => e.code),
      [404],
      'the status write was retried on a Deployment that is gone',
    );
  });
  it('mid-rollout, with its delete event held back: the first 404 is the last status patch', async () => {
    const controller = deploymentController();
    await createDeployment('rolling', 2);
    // no ReplicaSet controller runs here: the rollout moves only when this test writes the ReplicaSet's status
    await until('the rollout to start and the controller to settle', async () => {
      const d = await admin.get(Deployments, 'rolling', 'default');
      return d.metadata.annotations?.['deployment.kubernetes.io/revision'] === '1' && controller.pendingWork === 0;
    });
    const rs = (await admin.list(ReplicaSets, { namespace: 'default' })).items.find((r) =>
      r.metadata.name?.startsWith('rolling-'),
    )!;
    const statusPatches = () =>
      audit.filter((e) => e.resource === 'deployments/status' && e.name === 'rolling' && e.verb === 'patch');
    const before = statusPatches().length;
    const resultsBefore = await results();
    // one of two pods ready: the rollout is in progress (Progressing, a progress deadline to watch), and the
    // status write it causes is held long enough for the Deployment to be deleted under it
    const held = server.faults.add({ verbs: ['patch'], resources: ['deployments/status'], latencyMs: 1500 });
    await admin.patch(
      ReplicaSets,
      rs.metadata.name!,
      'default',
      { status: { replicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 } },
      'merge',
      { subresource: 'status' },
    );
    await until('the status write to be in flight', () => controller.pendingWork > 0);
    server.faults.stallWatches(true);
    try {
      await admin.delete(Deployments, 'rolling', 'default');
      await until('the held status write to answer 404', () => statusPatches().some((e) => e.code === 404));
      server.faults.remove(held);
      await until('the pass to end', () => controller.pendingWork === 0);
      // the cache still holds the Deployment: a retry (error, requeue), or a look again at the progress
      // deadline (requeueAfter), would patch a Deployment that is gone; the pass that met the 404 succeeded
      const after = await results();
      const ended = Object.fromEntries(
        Object.entries(after)
          .map(([r, n]) => [r, n - (resultsBefore[r] ?? 0)])
          .filter(([, n]) => n !== 0),
      );
      assert.deepEqual(ended, { success: 1 }, 'the pass that met the 404 asked to be run again');
      assert.deepEqual(
        statusPatches()
          .slice(before)
          .map((e) => e.code),
        [404],
        'a status patch was retried on a Deployment that is gone',
      );
    } finally {
      server.faults.stallWatches(false);
    }
    await until('the delete to reach the cache', async () => !(await mgr.cache.get(Deployments, 'rolling', 'default')));
    await until('the controller to be idle', () => controller.pendingWork === 0);
    assert.deepEqual(
      statusPatches()
        .slice(before)
        .map((e) => e.code),
      [404],
    );
  });
});

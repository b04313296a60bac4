// The simulated Deployment and ReplicaSet controllers and an object deleted while they write its status: the
// write answers 404 and that ends the pass (no error, no retry, no look again later), instead of retrying a
// status patch on an object that is gone. The cases that hold the delete event back keep the object in the
// controller's cache: any retry would reach the server, and the server's count of status patches shows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, type AuditEntry, startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { registerWorkloadSimulators } from '../src/workloads/index.ts';
import { Deployments, Pods, ReplicaSets } from '../src/workloads/kinds.ts';
import { PodLogStore } from '../src/workloads/pod-logs.ts';

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** one simulator on a fresh embedded API server, with the server's audit and the controller's counters */
function simulatorBed(only: 'deployments' | 'replicasets', controllerName: string) {
  const t = {
    server: undefined as unknown as ApiServer,
    mgr: undefined as unknown as Manager,
    admin: undefined as unknown as KubeClient,
    audit: [] as AuditEntry[],
    controller: () =>
      (t.mgr as unknown as { controllers: Controller[] }).controllers.find((c) => c.name === controllerName)!,
    reconcileErrors: async () =>
      (await t.mgr.metrics.reconcileErrors.get()).values.find((v) => v.labels.controller === controllerName)?.value ??
      0,
    /** how the controller's reconciles ended so far, by result (success, error, requeue, requeue_after) */
    results: async () => {
      const out: Record<string, number> = {};
      for (const v of (await t.mgr.metrics.reconcileTotal.get()).values)
        if (v.labels.controller === controllerName) out[String(v.labels.result)] = v.value;
      return out;
    },
    /** the results that moved since `earlier` */
    since: async (earlier: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(await t.results())
          .map(([r, n]) => [r, n - (earlier[r] ?? 0)])
          .filter(([, n]) => n !== 0),
      ),
    /** the status patches of `resource` `name` the server answered, by code */
    statusPatches: (resource: string, name: string) =>
      t.audit.filter((e) => e.resource === `${resource}/status` && e.name === name && e.verb === 'patch'),
  };
  /**
   * `change` makes the controller write `name`'s status; that write is held, the object deleted under it with
   * its delete event held back (the cache still holds it), and the pass that meets the 404 must end as a
   * success with that one status patch: a retry or a look again would patch the gone object once more.
   */
  const deleteUnderHeldStatusWrite = async (
    kind: typeof Deployments | typeof ReplicaSets,
    name: string,
    change: () => Promise<unknown>,
  ) => {
    const controller = t.controller();
    const resource = kind === Deployments ? 'deployments' : 'replicasets';
    const statusPatches = () => t.statusPatches(resource, name);
    const before = statusPatches().length;
    const resultsBefore = await t.results();
    const held = t.server.faults.add({ verbs: ['patch'], resources: [`${resource}/status`], latencyMs: 1500 });
    await change();
    await until('the status write to be in flight', () => controller.pendingWork > 0);
    t.server.faults.stallWatches(true);
    try {
      await t.admin.delete(kind, name, 'default');
      await until('the held status write to answer 404', () => statusPatches().some((e) => e.code === 404));
      t.server.faults.remove(held);
      await until('the pass to end', () => controller.pendingWork === 0);
      assert.deepEqual(await t.since(resultsBefore), { success: 1 }, 'the pass that met the 404 asked to run again');
      assert.deepEqual(
        statusPatches()
          .slice(before)
          .map((e) => e.code),
        [404],
        `a status patch was retried on a ${kind.kind} that is gone`,
      );
    } finally {
      t.server.faults.stallWatches(false);
    }
    return () =>
      statusPatches()
        .slice(before)
        .map((e) => e.code);
  };
  before(async () => {
    t.server = await startApiServer({ port: 0, auditSink: (e) => t.audit.push(e) });
    t.admin = await KubeClient.create(t.server.kubeconfigYaml(), { fieldManager: 'test' });
    t.mgr = await Manager.create({ kubeconfig: t.server.kubeconfigYaml(), logger: new Logger({}, 'silent') });
    registerWorkloadSimulators(t.mgr, { logs: new PodLogStore(), only: [only], events: false });
    await t.mgr.start();
  });
  after(async () => {
    t.server?.faults.clear();
    await t.mgr?.stop();
    t.admin?.close();
    await t.server?.close();
  });
  return Object.assign(t, { deleteUnderHeldStatusWrite });
}

const labelled = (name: string) => ({
  selector: { matchLabels: { app: name } },
  template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
});

describe('simulated Deployment controller: a Deployment deleted mid-pass', () => {
  const t = simulatorBed('deployments', 'sim-deployment');
  const createDeployment = (name: string, replicas: number) =>
    t.admin.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: { replicas, ...labelled(name) },
    });

  it('a 404 on its status write ends the pass: no reconcile error, no retry', async () => {
    const controller = t.controller();
    // the controller's writes to deployments/status wait, so the Deployment is deleted before they land
    const held = t.server.faults.add({ verbs: ['patch'], resources: ['deployments/status'], latencyMs: 1500 });
    await createDeployment('doomed', 1);
    // its ReplicaSet exists: the pass is now writing the Deployment's revision or status
    await until(
      'the ReplicaSet',
      async () => (await t.admin.list(ReplicaSets, { namespace: 'default' })).items.length > 0,
    );
    await t.admin.delete(Deployments, 'doomed', 'default');
    const statusWrites = () => t.statusPatches('deployments', 'doomed');
    await until('the delayed status write to answer 404', () => statusWrites().some((e) => e.code === 404));
    t.server.faults.remove(held);
    await until('the controller to be idle', () => controller.pendingWork === 0);
    assert.equal(await t.reconcileErrors(), 0, 'the 404 was reported as a reconcile error');
    assert.deepEqual(
      statusWrites().map((e) => e.code),
      [404],
      'the status write was retried on a Deployment that is gone',
    );
  });

  it('mid-rollout, with its delete event held back: the first 404 is the last status patch', async () => {
    const controller = t.controller();
    await createDeployment('rolling', 2);
    // no ReplicaSet controller runs here: the rollout moves only when this test writes the ReplicaSet's status
    await until('the rollout to start and the controller to settle', async () => {
      const d = await t.admin.get(Deployments, 'rolling', 'default');
      return d.metadata.annotations?.['deployment.kubernetes.io/revision'] === '1' && controller.pendingWork === 0;
    });
    const rs = (await t.admin.list(ReplicaSets, { namespace: 'default' })).items.find((r) =>
      r.metadata.name?.startsWith('rolling-'),
    )!;
    // one of two pods ready: the rollout is in progress (Progressing, a progress deadline to watch)
    const after = await t.deleteUnderHeldStatusWrite(Deployments, 'rolling', () =>
      t.admin.patch(
        ReplicaSets,
        rs.metadata.name!,
        'default',
        { status: { replicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 } },
        'merge',
        { subresource: 'status' },
      ),
    );
    await until(
      'the delete to reach the cache',
      async () => !(await t.mgr.cache.get(Deployments, 'rolling', 'default')),
    );
    await until('the controller to be idle', () => controller.pendingWork === 0);
    assert.deepEqual(after(), [404]);
  });
});

describe('simulated ReplicaSet controller: a ReplicaSet deleted mid-pass', () => {
  const t = simulatorBed('replicasets', 'sim-replicaset');

  it('waiting out minReadySeconds, with its delete event held back: the first 404 is the last status patch', async () => {
    const controller = t.controller();
    await t.admin.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'slow', namespace: 'default' },
      spec: { replicas: 1, minReadySeconds: 600, ...labelled('slow') },
    });
    // no kubelet runs here: the pod is ready only when this test says so
    let pod: string | undefined;
    await until('the pod and the controller to settle', async () => {
      pod = (await t.admin.list(Pods, { namespace: 'default' })).items.find((p) => p.metadata.name?.startsWith('slow-'))
        ?.metadata.name;
      const rs = await t.admin.get(ReplicaSets, 'slow', 'default');
      return pod !== undefined && rs.status?.replicas === 1 && controller.pendingWork === 0;
    });
    // the pod turns ready: the ReplicaSet counts it ready, and available only after minReadySeconds (a look
    // again then)
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await t.deleteUnderHeldStatusWrite(ReplicaSets, 'slow', () =>
      t.admin.patch(
        Pods,
        pod!,
        'default',
        { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
        'merge',
        { subresource: 'status' },
      ),
    );
  });
});

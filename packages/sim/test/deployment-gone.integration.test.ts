// The simulated Deployment controller and a Deployment deleted while it writes: the write answers 404 and
// that ends the pass (no error, no retry), instead of retrying a status patch on an object that is gone.
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
    await mgr?.stop();
    admin?.close();
    await server?.close();
  });

  it('a 404 on its status write ends the pass: no reconcile error, no retry', async () => {
    const controller = (mgr as unknown as { controllers: Controller[] }).controllers.find(
      (c) => c.name === 'sim-deployment',
    )!;
    // the controller's writes to deployments/status wait, so the Deployment is deleted before they land
    server.faults.add({ verbs: ['patch'], resources: ['deployments/status'], latencyMs: 1500 });
    await admin.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'doomed', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'doomed' } },
        template: { metadata: { labels: { app: 'doomed' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    // its ReplicaSet exists: the pass is now writing the Deployment's revision or status
    await until(
      'the ReplicaSet',
      async () => (await admin.list(ReplicaSets, { namespace: 'default' })).items.length > 0,
    );
    await admin.delete(Deployments, 'doomed', 'default');
    const statusWrites = () =>
      audit.filter((e) => e.resource === 'deployments/status' && e.name === 'doomed' && e.verb === 'patch');
    await until('the delayed status write to answer 404', () => statusWrites().some((e) => e.code === 404));
    await until('the controller to be idle', () => controller.pendingWork === 0);
    const errors = (await mgr.metrics.reconcileErrors.get()).values.find(
      (v) => v.labels.controller === 'sim-deployment',
    );
    assert.equal(errors?.value ?? 0, 0, 'the 404 was reported as a reconcile error');
    assert.deepEqual(
      statusWrites().map((e) => e.code),
      [404],
      'the status write was retried on a Deployment that is gone',
    );
  });
});

// The engine end to end: the sample Greeting controller on the test cluster (embedded or real API server;
// 503s from the embedded server's fault injector, or from the operator's transport on the real one),
// through packages/runtime's manager, cache and client. Missing user reference ⇒ ConfigValid=False/Failed and no children; creating
// it converges without a restart; 503s shorter than the grace period leave conditions untouched; longer
// ones give DependenciesReachable=False and Degraded; recovery restores Ready.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { type ConfigMap, ConfigMaps, CustomResourceDefinitions, KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Manager } from '@modelplane/runtime/manager';
import type { Condition } from '../../src/engine/index.ts';
import { type FaultControl, faultControl } from './helpers/faults.ts';
import { GREETING_CRD, type Greeting, Greetings, registerGreetingController } from './sample/greeting.ts';

const NS = 'default';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

const cond = (g: Greeting | undefined, type: string): Condition | undefined =>
  g?.status?.conditions?.find((c) => c.type === type);

describe('sample controller on the test cluster', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let admin: KubeClient;
  let mgr: Manager;
  let faults: FaultControl;
  let controller: Controller;

  const greeting = () => admin.get(Greetings, 'hello', NS);
  const children = async () =>
    (await admin.list(ConfigMaps, { namespace: NS })).items.filter((c) =>
      c.metadata.ownerReferences?.some((r) => r.kind === 'Greeting'),
    );

  before(async () => {
    cluster = await startTestCluster();
    admin = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'test-user' });
    await admin.create(GREETING_CRD);
    await waitFor('the Greeting CRD to be established', async () => {
      const crd = await admin.get(CustomResourceDefinitions, GREETING_CRD.metadata.name!);
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
    await waitFor('Greetings to be served', async () => (await admin.list(Greetings, { namespace: NS })) && true);
    mgr = await Manager.create({
      kubeconfig: cluster.kubeconfig,
      name: 'engine-sample',
      gracefulShutdownMs: 5_000,
    });
    faults = faultControl(cluster.real ? undefined : cluster.server, mgr.client.transport);
    controller = await registerGreetingController(mgr);
    await mgr.start();
  });

  after(async () => {
    await mgr?.stop();
    admin?.close();
    await cluster?.stop();
  });

  it('a missing user-referenced ConfigMap: ConfigValid=False/ReferenceNotFound, Failed, and no children', async () => {
    await admin.create({
      apiVersion: Greetings.apiVersion,
      kind: Greetings.kind,
      metadata: { name: 'hello', namespace: NS },
      spec: { configMapName: 'greeting-template', name: 'Ada' },
    });
    const g = await waitFor('status Failed', async () => {
      const g = await greeting();
      return g.status?.status === 'Failed' ? g : undefined;
    });
    assert.equal(cond(g, 'ConfigValid')?.status, 'False');
    assert.equal(cond(g, 'ConfigValid')?.reason, 'ReferenceNotFound');
    assert.match(cond(g, 'ConfigValid')!.message, /ConfigMap default\/greeting-template not found/);
    assert.equal(cond(g, 'Ready')?.status, 'False');
    assert.equal(cond(g, 'Ready')?.reason, 'ReferenceNotFound');
    assert.equal(cond(g, 'TemplateReady')?.status, 'False');
    await sleep(500);
    assert.deepEqual(await children(), [], 'nothing is applied while the reference is missing');
  });

  it('creating the ConfigMap converges to Ready without a restart', async () => {
    await admin.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'greeting-template', namespace: NS },
      data: { template: 'Hello, {name}!' },
    });
    const g = await waitFor('status Ready', async () => {
      const g = await greeting();
      return g.status?.status === 'Ready' ? g : undefined;
    });
    assert.equal(cond(g, 'Ready')?.status, 'True');
    assert.equal(cond(g, 'ConfigValid')?.status, 'True', 'the lazily created condition stays, now True');
    assert.equal(cond(g, 'TemplateReady')?.status, 'True');
    assert.equal(cond(g, 'OutputReady')?.status, 'True');
    assert.equal(g.status?.renderedConfigMap, 'hello-rendered');
    const [child] = await children();
    assert.equal((child as ConfigMap).data?.message, 'Hello, Ada!');
    assert.equal(child!.metadata.labels?.['app.kubernetes.io/managed-by'], 'modelplane-sample');
    assert.equal(child!.metadata.ownerReferences?.[0]?.uid, g.metadata.uid);
    const managers = (g.metadata.managedFields ?? [])
      .filter((m) => m.subresource === 'status')
      .map((m) => `${m.manager}/${m.operation}`);
    assert.deepEqual(
      managers,
      ['greeting/Apply'],
      'status is written by server-side apply with the controller field manager',
    );
  });

  it('503s on writes shorter than the grace period leave the conditions untouched', async () => {
    const before = await greeting();
    const snapshot = JSON.stringify(before.status);
    const id = faults.add({ verbs: ['patch'], resources: ['configmaps'], fraction: 1, error: 503 });
    await admin.patch(Greetings, 'hello', NS, { spec: { name: 'Grace' } }, 'merge');
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      const g = await greeting();
      assert.equal(JSON.stringify(g.status), snapshot, 'status unchanged during a short outage');
      await sleep(250);
    }
    faults.remove(id);
    await waitFor('the child to catch up', async () =>
      (await admin.get(ConfigMaps, 'hello-rendered', NS)).data?.message === 'Hello, Grace!' ? true : undefined,
    );
    await sleep(500);
    const g = await greeting();
    assert.equal(JSON.stringify(g.status), snapshot, 'no condition moved, none was added');
    assert.equal(cond(g, 'DependenciesReachable'), undefined);
  });

  it('503s longer than the grace period give DependenciesReachable=False and Degraded; recovery restores Ready', async () => {
    const id = faults.add({ verbs: ['patch'], resources: ['configmaps'], fraction: 1, error: 503 });
    const started = Date.now();
    await admin.patch(Greetings, 'hello', NS, { spec: { name: 'Linus' } }, 'merge');
    const degraded = await waitFor(
      'status Degraded',
      async () => {
        const g = await greeting();
        return g.status?.status === 'Degraded' ? g : undefined;
      },
      30_000,
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 9_500, `Degraded only after the 10 s grace period (after ${elapsed} ms)`);
    assert.equal(cond(degraded, 'DependenciesReachable')?.status, 'False');
    assert.equal(cond(degraded, 'DependenciesReachable')?.reason, 'InfrastructureError');
    assert.match(cond(degraded, 'DependenciesReachable')!.message, /apply ConfigMap default\/hello-rendered/);
    assert.equal(cond(degraded, 'Ready')?.status, 'False');
    assert.equal(cond(degraded, 'Ready')?.reason, 'InfrastructureError');

    faults.remove(id);
    const g = await waitFor('status Ready again', async () => {
      const g = await greeting();
      return g.status?.status === 'Ready' ? g : undefined;
    });
    assert.equal(cond(g, 'DependenciesReachable')?.status, 'True');
    assert.equal(cond(g, 'DependenciesReachable')?.reason, 'Reachable');
    assert.equal(cond(g, 'Ready')?.status, 'True');
    assert.equal((await admin.get(ConfigMaps, 'hello-rendered', NS)).data?.message, 'Hello, Linus!');
  });

  it('at steady state a resync writes nothing', async () => {
    const rv = (await greeting()).metadata.resourceVersion;
    const childRv = (await admin.get(ConfigMaps, 'hello-rendered', NS)).metadata.resourceVersion;
    assert.equal(await controller.resync(), 1);
    await sleep(1_000);
    assert.equal((await greeting()).metadata.resourceVersion, rv);
    assert.equal((await admin.get(ConfigMaps, 'hello-rendered', NS)).metadata.resourceVersion, childRv);
  });
});

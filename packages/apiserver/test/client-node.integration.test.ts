// @kubernetes/client-node 1.4.0 against the embedded API server: typed CRUD, custom objects,
// informers (add/update/delete, relist after a forced 410) and server-side apply.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { partsOf } from '../src/handle.ts';
import { type ApiServer, startApiServer } from '../src/index.ts';

function until(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (pred()) return resolve();
      if (Date.now() - start > timeoutMs) return reject(new Error('condition not met in time'));
      setTimeout(tick, 20);
    };
    tick();
  });
}

describe('@kubernetes/client-node 1.4.0 against the embedded API server', () => {
  let server: ApiServer;
  let kc: k8s.KubeConfig;
  before(async () => {
    server = await startApiServer({ port: 0 });
    kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfigYaml());
  });
  after(async () => {
    await server?.close();
  });

  it('creates, reads, replaces, lists and deletes core objects', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cfg', labels: { app: 'x' } }, data: { a: '1' } },
    });
    assert.ok(created.metadata?.uid);
    const got = await core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    assert.equal(got.data?.a, '1');
    got.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: 'default', body: got });
    assert.notEqual(replaced.metadata?.resourceVersion, created.metadata?.resourceVersion);
    // a stale resourceVersion is a 409 Conflict
    await assert.rejects(
      core.replaceNamespacedConfigMap({ name: 'cfg', namespace: 'default', body: got }),
      (e: { code?: number }) => e.code === 409,
    );
    const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=x' });
    assert.deepEqual(
      list.items.map((i) => i.metadata?.name),
      ['cfg'],
    );
    await core.deleteNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    await assert.rejects(
      core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' }),
      (e: { code?: number }) => e.code === 404,
    );
  });

  it('creates Deployments with defaults and bumps generation only on spec changes', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const d = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'd1' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'img' }] } },
        },
      },
    });
    assert.equal(d.spec?.replicas, 1);
    assert.equal(d.metadata?.generation, 1);
    const labelled = await apps.patchNamespacedDeployment(
      { name: 'd1', namespace: 'default', body: { metadata: { labels: { x: 'y' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal(labelled.metadata?.generation, 1);
    const scaled = await apps.patchNamespacedDeployment(
      { name: 'd1', namespace: 'default', body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal(scaled.metadata?.generation, 2);
  });

  it('informer sees add, update and delete, and relists after a forced 410', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const events: string[] = [];
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => events.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
    // client-node 1.4.0's informer stops on any error (and emits one on stop()): restart it unless we stopped it.
    let stopped = false;
    informer.on('error', () => {
      if (!stopped) setTimeout(() => informer.start(), 100);
    });
    await informer.start();
    try {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'inf' }, data: { v: '1' } },
      });
      await until(() => events.includes('add inf'));
      await core.patchNamespacedConfigMap(
        { name: 'inf', namespace: 'default', body: { data: { v: '2' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await until(() => events.includes('update inf'));
      await core.deleteNamespacedConfigMap({ name: 'inf', namespace: 'default' });
      await until(() => events.includes('delete inf'));

      // Force expiry: compact the history and end the watch; the informer's resumed watch gets 410 and relists.
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before-410' } } });
      await until(() => events.includes('add before-410'));
      const listsBefore = server.auditEntries().filter((e) => e.verb === 'list' && e.resource === 'configmaps').length;
      // In one tick: end the watch cleanly, write an object the informer has not seen, and drop the history,
      // so the informer's resumed watch starts from a resourceVersion the server no longer has.
      partsOf(server).front.watches.endAll();
      partsOf(server).core.store.commit('/configmaps', 'ADDED', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'during-410',
          namespace: 'default',
          uid: 'u-410',
          creationTimestamp: new Date().toISOString(),
        },
      });
      partsOf(server).core.store.compact();
      await until(() => events.includes('add during-410'));
      const listsAfter = server.auditEntries().filter((e) => e.verb === 'list' && e.resource === 'configmaps').length;
      assert.ok(listsAfter > listsBefore, 'the informer relisted');
      assert.ok(server.auditEntries().some((e) => e.verb === 'watch' && e.resource === 'configmaps'));
    } finally {
      stopped = true;
      await informer.stop();
    }
  });

  it('server-side apply through KubernetesObjectApi, including a custom resource', async () => {
    const objs = k8s.KubernetesObjectApi.makeApiClient(kc);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.org' },
      spec: {
        group: 'example.org',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string' } } },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
              },
            },
          },
        ],
      },
    };
    await objs.create(crd as k8s.KubernetesObject);
    await until(() => partsOf(server).core.registry.byResource('example.org', 'gadgets') !== undefined);
    const gadget = {
      apiVersion: 'example.org/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: 'default' },
      spec: { size: 2 },
    };
    const applied = (await objs.patch(
      gadget,
      undefined,
      undefined,
      'gadget-operator',
      true,
      k8s.PatchStrategy.ServerSideApply,
    )) as k8s.KubernetesObject;
    assert.equal(applied.metadata?.managedFields?.[0]?.manager, 'gadget-operator');
    assert.equal(applied.metadata?.managedFields?.[0]?.operation, 'Apply');
    // A second manager applying a different value for the same field conflicts without force.
    await assert.rejects(
      objs.patch(
        { ...gadget, spec: { size: 3 } },
        undefined,
        undefined,
        'other',
        false,
        k8s.PatchStrategy.ServerSideApply,
      ),
      (e: { code?: number }) => e.code === 409,
    );
    // Status through the subresource with SSA and its own manager.
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.patchNamespacedCustomObjectStatus(
      {
        group: 'example.org',
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        name: 'g1',
        fieldManager: 'gadget-status',
        force: true,
        body: {
          apiVersion: 'example.org/v1',
          kind: 'Gadget',
          metadata: { name: 'g1', namespace: 'default' },
          status: { ready: true },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    const got = (await custom.getNamespacedCustomObject({
      group: 'example.org',
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      name: 'g1',
    })) as {
      status?: { ready?: boolean };
      metadata: { managedFields: Array<{ manager: string; subresource?: string }> };
    };
    assert.equal(got.status?.ready, true);
    const statusEntry = got.metadata.managedFields.find((m) => m.manager === 'gadget-status');
    assert.equal(statusEntry?.subresource, 'status');
  });
});

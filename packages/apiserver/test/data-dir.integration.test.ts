// `--data-dir`: objects, custom resource types, the resourceVersion counter and the server's identity
// (CA and admin token, so an existing kubeconfig keeps working) survive a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startApiServer } from '../src/index.ts';

describe('API server with --data-dir', () => {
  it('keeps objects, CRDs, resourceVersions and credentials across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-data-'));
    try {
      const first = await startApiServer({ port: 0, dataDir: dir });
      const kubeconfig = first.kubeconfigYaml();
      const kc = new k8s.KubeConfig();
      kc.loadFromString(kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
      const cm = await core.createNamespacedConfigMap({
        namespace: 'team-a',
        body: { metadata: { name: 'kept' }, data: { k: 'v' } },
      });
      const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
      await ext.createCustomResourceDefinition({
        body: {
          metadata: { name: 'things.example.com' },
          spec: {
            group: 'example.com',
            scope: 'Namespaced',
            names: { plural: 'things', kind: 'Thing' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: {
                  openAPIV3Schema: {
                    type: 'object',
                    properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } },
                  },
                },
              },
            ],
          },
        },
      });
      await new Promise((r) => setTimeout(r, 50));
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      await custom.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'team-a',
        plural: 'things',
        body: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't1' }, spec: { n: 7 } },
      });
      const lastRv = Number((await core.listNamespace()).metadata?.resourceVersion);
      await first.close();

      const second = await startApiServer({ port: 0, dataDir: dir });
      try {
        const kc2 = new k8s.KubeConfig();
        // same CA and token, new port
        kc2.loadFromString(kubeconfig.replace(first.url, second.url));
        const core2 = kc2.makeApiClient(k8s.CoreV1Api);
        const got = await core2.readNamespacedConfigMap({ name: 'kept', namespace: 'team-a' });
        assert.equal(got.data?.k, 'v');
        assert.equal(got.metadata?.resourceVersion, cm.metadata?.resourceVersion);
        const thing = (await kc2.makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({
          group: 'example.com',
          version: 'v1',
          namespace: 'team-a',
          plural: 'things',
          name: 't1',
        })) as { spec: { n: number } };
        assert.equal(thing.spec.n, 7);
        const created = await core2.createNamespacedConfigMap({
          namespace: 'team-a',
          body: { metadata: { name: 'after' } },
        });
        assert.ok(Number(created.metadata?.resourceVersion) > lastRv, 'the resourceVersion counter never goes back');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

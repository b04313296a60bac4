import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  mergeRuntimeConfig,
  operatorNamespaceFromEnv,
  type RuntimeConfigObject,
  type RuntimeConfigSpec,
  resolveRuntimeConfig,
  runtimeConfigLookupNamespace,
  type ServiceRuntimeConfig,
} from '../../src/common/runtime-config/index.ts';

describe('mergeRuntimeConfig', () => {
  const cases: {
    name: string;
    cluster?: RuntimeConfigSpec;
    namespace?: RuntimeConfigSpec;
    inline?: ServiceRuntimeConfig;
    want: RuntimeConfigSpec;
  }[] = [
    { name: 'nothing', want: {} },
    {
      name: 'cluster only',
      cluster: { storage: { defaultStorageClassName: 'fast-nvme' } },
      want: { storage: { defaultStorageClassName: 'fast-nvme' } },
    },
    {
      name: 'namespace overrides cluster field by field',
      cluster: {
        storage: { defaultStorageClassName: 'fast-nvme', pvcHeadroomPercent: 10 },
        routing: { enabled: true },
      },
      namespace: {
        storage: { defaultStorageClassName: 'team-ssd' },
        routing: { pathTemplate: '/{.metadata.namespace}' },
      },
      want: {
        storage: { defaultStorageClassName: 'team-ssd', pvcHeadroomPercent: 10 },
        routing: { enabled: true, pathTemplate: '/{.metadata.namespace}' },
      },
    },
    {
      name: 'explicit false, 0 and "" in namespace DO override',
      cluster: {
        routing: { enabled: true, pathTemplate: '/x' },
        labelPropagation: { enabled: true, match: ['a/*'] },
        storage: { pvcHeadroomPercent: 25, defaultStorageClassName: 'fast' },
      },
      namespace: {
        routing: { enabled: false, pathTemplate: '' },
        labelPropagation: { enabled: false },
        storage: { pvcHeadroomPercent: 0, defaultStorageClassName: '' },
      },
      want: {
        routing: { enabled: false, pathTemplate: '' },
        labelPropagation: { enabled: false, match: ['a/*'] },
        storage: { pvcHeadroomPercent: 0, defaultStorageClassName: '' },
      },
    },
    {
      name: 'null and absent inherit',
      cluster: { routing: { enabled: true } },
      namespace: { routing: { enabled: null as unknown as boolean } },
      want: { routing: { enabled: true } },
    },
    {
      name: 'lists other than env replace wholesale',
      cluster: { labelPropagation: { match: ['a/*', 'b/*'] } },
      namespace: { labelPropagation: { match: ['c/x'] } },
      want: { labelPropagation: { match: ['c/x'] } },
    },
    {
      name: 'an explicit empty list replaces too',
      cluster: { labelPropagation: { match: ['a/*'] } },
      namespace: { labelPropagation: { match: [] } },
      want: { labelPropagation: { match: [] } },
    },
    {
      name: 'env merges by name (ns replaces in place, new appended)',
      cluster: {
        env: [
          { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' },
          { name: 'A', value: '1' },
        ],
      },
      namespace: {
        env: [
          { name: 'B', value: '2' },
          { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' },
        ],
      },
      want: {
        env: [
          { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' },
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
    },
    {
      name: 'annotations merge by key',
      cluster: { routing: { annotations: { a: '1', b: '2' } } },
      namespace: { routing: { annotations: { b: 'ns', c: '3' } } },
      inline: { routing: { annotations: { c: 'svc' } } },
      want: { routing: { annotations: { a: '1', b: 'ns', c: 'svc' } } },
    },
    {
      name: 'gatewayRef is replaced as a whole',
      cluster: { routing: { gatewayRef: { name: 'gw', namespace: 'gateways', sectionName: 'https' } } },
      namespace: { routing: { gatewayRef: { name: 'team-gw' } } },
      want: { routing: { gatewayRef: { name: 'team-gw' } } },
    },
    {
      name: 'inline service config overrides both',
      cluster: { routing: { enabled: true, requestTimeout: '60s' }, env: [{ name: 'A', value: 'c' }] },
      namespace: { routing: { pathTemplate: '/ns' }, env: [{ name: 'A', value: 'n' }] },
      inline: { routing: { enabled: false, pathTemplate: '/svc' }, env: [{ name: 'A', value: 's' }] },
      want: {
        routing: { enabled: false, requestTimeout: '60s', pathTemplate: '/svc' },
        env: [{ name: 'A', value: 's' }],
      },
    },
    {
      name: 'deprecated top-level storage fields migrate per layer before merging',
      cluster: { storage: { defaultStorageClassName: 'cluster-sc' } },
      namespace: { defaultStorageClassName: 'legacy-ns', pvcHeadroomPercent: 5 },
      want: { storage: { defaultStorageClassName: 'legacy-ns', pvcHeadroomPercent: 5 } },
    },
    {
      name: 'deprecated field does not beat the new field in the same config',
      namespace: { defaultStorageClassName: 'legacy', storage: { defaultStorageClassName: 'new' } },
      want: { storage: { defaultStorageClassName: 'new' } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(mergeRuntimeConfig(c.cluster, c.namespace, c.inline), c.want));
  }

  it('never mutates or aliases its inputs', () => {
    const cluster: RuntimeConfigSpec = { routing: { annotations: { a: '1' } }, env: [{ name: 'A', value: '1' }] };
    const namespace: RuntimeConfigSpec = { routing: { annotations: { b: '2' } } };
    const before = structuredClone({ cluster, namespace });
    const merged = mergeRuntimeConfig(cluster, namespace);
    merged.routing!.annotations!.a = 'changed';
    merged.env![0]!.value = 'changed';
    assert.deepEqual({ cluster, namespace }, before);
  });
});

// docs/aim.md's cluster and namespace examples, unchanged.
const seedCluster = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterRuntimeConfig
metadata:
  name: default
spec:
  defaultStorageClassName: fast-nvme
`) as RuntimeConfigObject;
const seedNamespace = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMRuntimeConfig
metadata:
  name: default
  namespace: ml-team
spec:
  defaultStorageClassName: team-ssd
  routing:
    enabled: true
    gatewayRef:
      name: kserve-gateway
      namespace: kgateway-system
    pathTemplate: "/{.metadata.namespace}/{.metadata.labels['team']}"
`) as RuntimeConfigObject;
seedCluster.metadata.uid = 'xyz123-uvw123';
seedNamespace.metadata.uid = 'abc123-def456';

function named(obj: RuntimeConfigObject, name: string): RuntimeConfigObject {
  return { ...obj, metadata: { ...obj.metadata, name } };
}

describe('resolveRuntimeConfig', () => {
  it('both scopes: merged with namespace precedence, one ref (the namespaced one)', () => {
    const got = resolveRuntimeConfig({ namespace: 'ml-team', namespaced: seedNamespace, cluster: seedCluster });
    assert.equal(got.outcome, 'Resolved');
    if (got.outcome !== 'Resolved') return;
    assert.deepEqual(got.ref, {
      kind: 'AIMRuntimeConfig',
      name: 'default',
      namespace: 'ml-team',
      scope: 'Namespace',
      uid: 'abc123-def456',
    });
    assert.equal(got.spec.storage?.defaultStorageClassName, 'team-ssd');
    assert.deepEqual(got.spec.routing?.gatewayRef, { name: 'kserve-gateway', namespace: 'kgateway-system' });
  });

  it("cluster only: docs/aim.md's cluster status shape", () => {
    const got = resolveRuntimeConfig({ namespace: 'ml-team', cluster: seedCluster });
    assert.equal(got.outcome, 'Resolved');
    if (got.outcome !== 'Resolved') return;
    assert.deepEqual(got.ref, {
      kind: 'AIMClusterRuntimeConfig',
      name: 'default',
      namespace: '',
      scope: 'Cluster',
      uid: 'xyz123-uvw123',
    });
    assert.deepEqual(got.spec, { storage: { defaultStorageClassName: 'fast-nvme' } });
  });

  const outcomes: {
    name: string;
    runtimeConfigName?: string;
    present: ('ns' | 'cluster')[];
    outcome: string;
    resolvedName: string;
  }[] = [
    { name: 'omitted name, nothing exists', present: [], outcome: 'DefaultConfigNotFound', resolvedName: 'default' },
    {
      name: 'empty name means default',
      runtimeConfigName: '',
      present: [],
      outcome: 'DefaultConfigNotFound',
      resolvedName: 'default',
    },
    {
      name: 'explicit "default", nothing exists',
      runtimeConfigName: 'default',
      present: [],
      outcome: 'DefaultConfigNotFound',
      resolvedName: 'default',
    },
    {
      name: 'explicit name, nothing exists',
      runtimeConfigName: 'non-existent',
      present: [],
      outcome: 'ConfigNotFound',
      resolvedName: 'non-existent',
    },
    {
      name: 'explicit name, namespaced exists',
      runtimeConfigName: 'my-config',
      present: ['ns'],
      outcome: 'Resolved',
      resolvedName: 'my-config',
    },
    {
      name: 'explicit name, falls back to cluster',
      runtimeConfigName: 'my-config',
      present: ['cluster'],
      outcome: 'Resolved',
      resolvedName: 'my-config',
    },
  ];
  for (const c of outcomes) {
    it(c.name, () => {
      const name = c.resolvedName;
      const got = resolveRuntimeConfig({
        runtimeConfigName: c.runtimeConfigName,
        namespace: 'ml-team',
        namespaced: c.present.includes('ns') ? named(seedNamespace, name) : undefined,
        cluster: c.present.includes('cluster') ? named(seedCluster, name) : undefined,
      });
      assert.equal(got.outcome, c.outcome);
      assert.equal(got.name, name);
      if (got.outcome === 'ConfigNotFound') assert.match(got.message, /RuntimeConfig non-existent not found.*ml-team/);
      if (got.outcome === 'DefaultConfigNotFound') assert.deepEqual(got.spec, {});
      if (got.outcome === 'Resolved') assert.equal(got.ref.scope, c.present.includes('ns') ? 'Namespace' : 'Cluster');
    });
  }

  it('rejects candidates that do not match the request (caller bug)', () => {
    assert.throws(
      () => resolveRuntimeConfig({ runtimeConfigName: 'x', cluster: seedCluster }),
      /does not match the requested name x/,
    );
    assert.throws(
      () => resolveRuntimeConfig({ namespace: 'other', namespaced: seedNamespace }),
      /not in namespace other/,
    );
  });

  const namespaces = [
    { consumer: 'ml-team', env: {}, want: 'ml-team' },
    { consumer: undefined, env: {}, want: 'aim-system' },
    { consumer: '', env: { AIM_SYSTEM_NAMESPACE: 'ops' }, want: 'ops' },
    { consumer: 'ml-team', env: { AIM_SYSTEM_NAMESPACE: 'ops' }, want: 'ml-team' },
  ];
  for (const c of namespaces) {
    it(`lookup namespace for consumer ${JSON.stringify(c.consumer)} with env ${JSON.stringify(c.env)}`, () => {
      assert.equal(runtimeConfigLookupNamespace(c.consumer, operatorNamespaceFromEnv(c.env)), c.want);
    });
  }
});

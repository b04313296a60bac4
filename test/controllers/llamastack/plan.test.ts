// The pure pieces of the Llama Stack controller, table-driven: which generated ConfigMaps go, the
// Deployment's command, env and strategy, the optional children, secret checks and the value hash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap, Secret } from '@modelplane/runtime/client';
import type { LlamaStackDistribution } from '../../../src/apis/llamastack/index.ts';
import { buildHpa, buildIngress, buildNetworkPolicy, buildPdb } from '../../../src/controllers/llamastack/network.ts';
import { configMapsToDelete, mountedConfigMaps } from '../../../src/controllers/llamastack/retention.ts';
import { secretProblems, secretRefsOf, secretValuesHash } from '../../../src/controllers/llamastack/secret-refs.ts';
import { phaseOf } from '../../../src/controllers/llamastack/status.ts';
import { buildDeployment } from '../../../src/controllers/llamastack/workload.ts';

const cr = (spec: Partial<LlamaStackDistribution['spec']>): LlamaStackDistribution =>
  ({
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name: 'x', namespace: 'ns', uid: 'u' },
    spec: { distribution: { name: 'starter' }, ...spec },
  }) as LlamaStackDistribution;
const cm = (name: string, created: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, creationTimestamp: created },
});

describe('Llama Stack planner pieces', () => {
  const retention: Array<[string, string[], string | undefined, string[], string[]]> = [
    ['first config: nothing to delete', ['a'], 'a', [], []],
    ['new config, live one kept', ['a', 'b'], 'b', ['a'], []],
    ['third config while two ReplicaSets mount older ones', ['a', 'b', 'c'], 'c', ['b', 'a'], []],
    ['third config after the oldest ReplicaSet went', ['a', 'b', 'c'], 'c', ['b'], ['a']],
    ['unmounted leftovers: the newest two kept', ['a', 'b', 'c', 'd'], 'd', [], ['a', 'b']],
    [
      'current not yet created (failure): keep the mounted one and the newest other',
      ['a', 'b', 'c'],
      undefined,
      ['c'],
      ['a'],
    ],
  ];
  for (const [what, names, current, mounted, gone] of retention) {
    it(`ConfigMap retention: ${what}`, () => {
      const list = names.map((n, i) => cm(n, `2026-01-01T00:00:0${i}Z`));
      assert.deepEqual(
        configMapsToDelete(list, current, new Set(mounted))
          .map((c) => c.metadata.name)
          .sort(),
        gone,
      );
    });
  }

  it('finds the ConfigMaps a Deployment or ReplicaSet mounts', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'r' },
      spec: {
        selector: {},
        template: {
          spec: {
            containers: [],
            volumes: [{ name: 'user-config', configMap: { name: 'x-config-1' } }, { name: 'e' }],
          },
        },
      },
    };
    assert.deepEqual([...mountedConfigMaps([rs])], ['x-config-1']);
  });

  it('runs the mounted config on the configured port, user env winning by name, secrets by reference', () => {
    const d = buildDeployment({
      cr: cr({ workload: { workers: 2, overrides: { env: [{ name: 'LLS_PORT', value: 'mine' }] } } }),
      image: 'img:1',
      port: 9000,
      config: { configMap: 'x-config-abc', key: 'config.yaml', hash: 'f'.repeat(64) },
      secrets: [{ env: 'LLSD_V_API_KEY', secret: 's', key: 'k', field: 'f' }],
      secretHash: '0123456789abcdef',
    }) as any;
    const c = d.spec.template.spec.containers[0];
    assert.deepEqual(c.command, ['llama', 'stack', 'run', '/etc/llama-stack/config.yaml']);
    assert.deepEqual(c.args, ['--port', '9000']);
    assert.equal(c.env.filter((e: any) => e.name === 'LLS_PORT').length, 1);
    assert.equal(c.env.find((e: any) => e.name === 'LLS_PORT').value, 'mine');
    assert.deepEqual(c.env.find((e: any) => e.name === 'LLSD_V_API_KEY').valueFrom, {
      secretKeyRef: { name: 's', key: 'k' },
    });
    assert.deepEqual(c.resources, { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } });
    assert.equal(d.spec.strategy.type, 'RollingUpdate');
    assert.equal(d.spec.replicas, 1);
    assert.deepEqual(d.spec.template.metadata.annotations, {
      'llamastack.io/config-hash': 'f'.repeat(16),
      'llamastack.io/secret-hash': '0123456789abcdef',
    });
  });

  it('an image that runs its own config gets no command and no config volume', () => {
    const d = buildDeployment({
      cr: cr({ distribution: { image: 'me/own:1' } }),
      image: 'me/own:1',
      port: 8321,
      secrets: [],
    }) as any;
    const c = d.spec.template.spec.containers[0];
    assert.equal(c.command, undefined);
    assert.equal(
      d.spec.template.spec.volumes.some((v: any) => v.name === 'user-config'),
      false,
    );
  });

  const optional: Array<[string, Partial<LlamaStackDistribution['spec']>, Record<string, boolean>]> = [
    ['nothing optional', {}, { pdb: false, hpa: false, np: false, ingress: false }],
    ['two replicas → PDB', { workload: { replicas: 2 } }, { pdb: true, hpa: false, np: false, ingress: false }],
    [
      'autoscaling → HPA and PDB',
      { workload: { autoscaling: { maxReplicas: 3 } } },
      { pdb: true, hpa: true, np: false, ingress: false },
    ],
    [
      'allowedFrom → NetworkPolicy',
      { networking: { allowedFrom: { namespaces: ['a'] } } },
      { pdb: false, hpa: false, np: true, ingress: false },
    ],
    [
      'expose → Ingress',
      { networking: { expose: { enabled: true } } },
      { pdb: false, hpa: false, np: false, ingress: true },
    ],
  ];
  for (const [what, spec, want] of optional) {
    it(`optional children: ${what}`, () => {
      const o = cr(spec);
      assert.deepEqual(
        {
          pdb: !!buildPdb(o),
          hpa: !!buildHpa(o),
          np: !!buildNetworkPolicy(o, 8321, 'sys'),
          ingress: !!buildIngress(o, 8321),
        },
        want,
      );
    });
  }

  it('caps the HPA minimum at its maximum and lets every namespace in for "*"', () => {
    assert.equal(
      (buildHpa(cr({ workload: { replicas: 5, autoscaling: { maxReplicas: 3 } } })) as any).spec.minReplicas,
      3,
    );
    assert.deepEqual(
      (buildNetworkPolicy(cr({ networking: { allowedFrom: { namespaces: ['*'] } } }), 1, 's') as any).spec.ingress[0]
        .from,
      [{ namespaceSelector: {} }],
    );
  });

  it('checks secrets with docs/llamastack.md message and hashes values, not labels', () => {
    const spec = cr({
      providers: { inference: [{ provider: 'vllm', apiKey: { name: 's', key: 'k' } }] },
      storage: { kv: { type: 'redis', endpoint: 'r:1', password: { name: 's', key: 'pw' } } },
    }).spec;
    const refs = secretRefsOf(spec);
    assert.deepEqual(
      refs.map((r) => r.field),
      ['spec.providers.inference[0].apiKey', 'spec.storage.kv.password'],
    );
    const secret = (data: Record<string, string>, labels?: Record<string, string>): Secret => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', ...(labels ? { labels } : {}) },
      data,
    });
    assert.deepEqual(
      secretProblems(refs, new Map([['s', secret({ k: 'YQ==' })]]), 'ns').map((p) => p.message),
      ['Secret "s" in namespace "ns" has no key "pw". Referenced by: spec.storage.kv.password'],
    );
    assert.deepEqual(
      secretProblems(refs, new Map(), 'ns')[0]!.message,
      'Secret "s" not found in namespace "ns". Referenced by: spec.providers.inference[0].apiKey',
    );
    const h = (s: Secret) => secretValuesHash(refs, new Map([['s', s]]));
    assert.equal(h(secret({ k: 'YQ==', pw: 'Yg==' })), h(secret({ k: 'YQ==', pw: 'Yg==' }, { any: 'label' })));
    assert.notEqual(h(secret({ k: 'YQ==', pw: 'Yg==' })), h(secret({ k: 'Yw==', pw: 'Yg==' })));
  });

  it('maps engine states to the phases', () => {
    assert.deepEqual(
      ['Ready', 'Progressing', 'Starting', 'Pending', 'Degraded', 'Failed'].map((s) => phaseOf(s as never)),
      ['Ready', 'Initializing', 'Initializing', 'Pending', 'Failed', 'Failed'],
    );
  });
});

describe("v1alpha1's containerSpec.name", () => {
  it('names the server container (kept through conversion in the v1alpha1-fields annotation); anything unusable falls back', () => {
    const named = (annotation?: string) => {
      const object = cr({});
      if (annotation !== undefined) object.metadata.annotations = { 'llamastack.io/v1alpha1-fields': annotation };
      const d = buildDeployment({ cr: object, image: 'img:1', port: 8321, secrets: [] }) as any;
      return d.spec.template.spec.containers.map((c: any) => c.name);
    };
    assert.deepEqual(named('{"containerName":"server"}'), ['server']);
    assert.deepEqual(named(), ['llama-stack']);
    assert.deepEqual(named('{"containerName":"Not_A_Label"}'), ['llama-stack']);
    assert.deepEqual(named('not json'), ['llama-stack']);
  });
});

// The AIMService planner: InferenceService and HTTPRoute shapes, inline-over-config precedence (explicit
// false included), env precedence, credentials, and what happens to an existing route.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { RuntimeConfigSpec } from '../../../src/common/runtime-config/index.ts';
import {
  desireService,
  type ModelObject,
  planService,
  type ServiceObservation,
} from '../../../src/controllers/aim/service/index.ts';
import { FetchResult } from '../../../src/engine/index.ts';
import { fetched, model, NS, QWEN_IMAGE, resolvedConfig, SEED_ROUTING, service } from './helpers/service-fixtures.ts';

type Json = Record<string, any>;

function desire(
  svc = service(),
  layers: { cluster?: RuntimeConfigSpec; namespace?: RuntimeConfigSpec } = { namespace: SEED_ROUTING },
  extra: Parameters<typeof fetched>[1] = {},
): ServiceObservation {
  return desireService(svc, resolvedConfig(layers), fetched(svc, extra));
}

function applied(obs: ServiceObservation, svc = service()) {
  const plan = planService(svc, obs);
  const byKind = (kind: string) => plan.applies.find((a) => a.object.kind === kind);
  return {
    plan,
    isvc: byKind('InferenceService')?.object as Json | undefined,
    route: byKind('HTTPRoute')?.object as Json | undefined,
    model: byKind('AIMModel'),
  };
}

describe('InferenceService shape', () => {
  it('one kserve-container running the model image, replicas as min and max, resources, no autoscaler', () => {
    const svc = service({
      spec: {
        model: { name: 'qwen-qwen3-32b' },
        replicas: 3,
        resources: { limits: { 'amd.com/gpu': 1 }, requests: { cpu: '4' } },
      },
    });
    const { isvc, plan } = applied(desire(svc), svc);
    assert.ok(isvc);
    assert.equal(
      plan.applies.find((a) => a.object.kind === 'InferenceService')?.mode,
      'owned',
      'owned: the engine adds the controller ownerReference',
    );
    assert.equal(isvc.apiVersion, 'serving.kserve.io/v1beta1');
    assert.deepEqual(isvc.metadata.name, 'qwen-chat');
    assert.equal(isvc.metadata.namespace, NS);
    assert.equal(isvc.metadata.annotations['serving.kserve.io/autoscalerClass'], 'none');
    assert.equal(isvc.metadata.labels['aim.eai.amd.com/service'], 'qwen-chat');
    assert.equal(isvc.metadata.labels['aim.eai.amd.com/model'], 'qwen-qwen3-32b');
    const p = isvc.spec.predictor;
    assert.equal(p.minReplicas, 3);
    assert.equal(p.maxReplicas, 3);
    assert.equal(p.containers.length, 1);
    const c = p.containers[0];
    assert.equal(c.name, 'kserve-container');
    assert.equal(c.image, QWEN_IMAGE);
    assert.deepEqual(c.ports, [{ name: 'http', containerPort: 8000, protocol: 'TCP' }]);
    assert.deepEqual(c.resources, { limits: { 'amd.com/gpu': 1 }, requests: { cpu: '4' } });
    assert.deepEqual(c.volumeMounts, [{ name: 'dshm', mountPath: '/dev/shm' }]);
    assert.deepEqual(p.volumes, [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '8Gi' } }]);
  });

  it('replicas default to 1', () => {
    const { isvc } = applied(desire());
    assert.equal(isvc!.spec.predictor.minReplicas, 1);
    assert.equal(isvc!.spec.predictor.maxReplicas, 1);
  });

  it('the model image comes from the resolved model, namespaced or cluster', () => {
    const svc = service();
    const clusterModel = model({ namespace: null, image: 'registry.example/cluster/qwen:1' });
    const obs = desireService(
      svc,
      resolvedConfig({}),
      fetched(svc, { model: FetchResult.of<ModelObject>(clusterModel) }),
    );
    const isvc = obs.desired?.inferenceService as Json;
    assert.equal(isvc.spec.predictor.containers[0].image, 'registry.example/cluster/qwen:1');
    assert.equal(isvc.metadata.labels['aim.eai.amd.com/model'], 'qwen-qwen3-32b');
  });

  const credentialCases: Array<{ name: string; spec: Json; config: Json; want: { secrets?: string[]; sa?: string } }> =
    [
      {
        name: "the service's own",
        spec: { imagePullSecrets: [{ name: 'svc-pull' }], serviceAccountName: 'svc-sa' },
        config: { imagePullSecrets: [{ name: 'ns-pull' }], serviceAccountName: 'ns-sa' },
        want: { secrets: ['svc-pull'], sa: 'svc-sa' },
      },
      {
        name: "the namespace config's when the service has none",
        spec: {},
        config: { imagePullSecrets: [{ name: 'ns-pull' }], serviceAccountName: 'ns-sa' },
        want: { secrets: ['ns-pull'], sa: 'ns-sa' },
      },
      { name: 'none at all', spec: {}, config: {}, want: {} },
    ];
  for (const c of credentialCases) {
    it(`imagePullSecrets and serviceAccountName: ${c.name}`, () => {
      const svc = service({ spec: { model: { name: 'qwen-qwen3-32b' }, ...c.spec } });
      const { isvc } = applied(desire(svc, { namespace: c.config as RuntimeConfigSpec }), svc);
      const p = isvc!.spec.predictor;
      assert.deepEqual(
        p.imagePullSecrets?.map((s: { name: string }) => s.name),
        c.want.secrets,
      );
      assert.equal(p.serviceAccountName, c.want.sa);
    });
  }
});

describe('env precedence: operator defaults < cluster < namespace < service', () => {
  const cases: Array<{
    name: string;
    cluster?: Json[];
    namespace?: Json[];
    service?: Json[];
    want: Record<string, string>;
  }> = [
    { name: 'operator defaults only', want: { AIM_CACHE_PATH: '/workspace/cache', VLLM_ENABLE_METRICS: 'true' } },
    {
      name: 'AIM example 8: cluster sets the protocol',
      cluster: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' }],
      want: { AIM_CACHE_PATH: '/workspace/cache', VLLM_ENABLE_METRICS: 'true', AIM_DOWNLOADER_PROTOCOL: 'HTTP,XET' },
    },
    {
      name: 'AIM examples 8 + 9: namespace beats cluster',
      cluster: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' }],
      namespace: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' }],
      want: { AIM_CACHE_PATH: '/workspace/cache', VLLM_ENABLE_METRICS: 'true', AIM_DOWNLOADER_PROTOCOL: 'HTTP' },
    },
    {
      name: 'the service beats both, and a config may override an operator default',
      cluster: [
        { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' },
        { name: 'VLLM_ENABLE_METRICS', value: 'false' },
      ],
      namespace: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' }],
      service: [
        { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET' },
        { name: 'EXTRA', value: '1' },
      ],
      want: {
        AIM_CACHE_PATH: '/workspace/cache',
        VLLM_ENABLE_METRICS: 'false',
        AIM_DOWNLOADER_PROTOCOL: 'XET',
        EXTRA: '1',
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const svc = service({
        spec: { model: { name: 'qwen-qwen3-32b' }, ...(c.service ? { env: c.service as never } : {}) },
      });
      const layers = {
        ...(c.cluster ? { cluster: { env: c.cluster } as RuntimeConfigSpec } : {}),
        ...(c.namespace ? { namespace: { env: c.namespace } as RuntimeConfigSpec } : {}),
      };
      const { isvc } = applied(desire(svc, layers), svc);
      const env = isvc!.spec.predictor.containers[0].env as Array<{ name: string; value: string }>;
      assert.deepEqual(Object.fromEntries(env.map((e) => [e.name, e.value])), c.want);
      assert.equal(new Set(env.map((e) => e.name)).size, env.length, 'each name once');
    });
  }
});

describe('HTTPRoute shape', () => {
  it('docs/aim.md example: parentRef, PathPrefix on the rendered path, rewrite to /, predictor backend, timeout, annotations', () => {
    const layers = {
      namespace: {
        routing: { ...SEED_ROUTING.routing, requestTimeout: '90s', annotations: { 'example.com/team': 'ml' } },
      },
    };
    const { route, plan } = applied(desire(service(), layers));
    assert.ok(route, 'an HTTPRoute is planned');
    assert.equal(plan.applies.find((a) => a.object.kind === 'HTTPRoute')?.mode, 'owned');
    assert.equal(route.apiVersion, 'gateway.networking.k8s.io/v1');
    assert.equal(route.metadata.name, 'qwen-chat');
    assert.deepEqual(route.metadata.annotations, { 'example.com/team': 'ml' });
    assert.deepEqual(route.spec.parentRefs, [
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'inference-gateway', namespace: 'gateways' },
    ]);
    assert.equal(route.spec.rules.length, 1);
    const rule = route.spec.rules[0];
    assert.deepEqual(rule.matches, [{ path: { type: 'PathPrefix', value: '/ml/ml-team/conversational-ai' } }]);
    assert.deepEqual(rule.filters, [
      { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } },
    ]);
    assert.deepEqual(rule.backendRefs, [
      { group: '', kind: 'Service', name: 'qwen-chat-predictor', port: 80, weight: 1 },
    ]);
    assert.deepEqual(rule.timeouts, { request: '90s' });
  });

  it('no timeout and no annotations configured: neither field is set', () => {
    const { route } = applied(desire());
    assert.equal(route!.metadata.annotations, undefined);
    assert.equal(route!.spec.rules[0].timeouts, undefined);
  });
});

describe('inline AIMService routing over the runtime config, field by field', () => {
  const gwA = { name: 'inference-gateway', namespace: 'gateways' };
  const gwB = { name: 'team-gateway', namespace: 'ml-team', sectionName: 'https' };
  const cases: Array<{
    name: string;
    config: Json;
    inline?: Json;
    want: { route: false } | { path?: string; parent?: Json; timeout?: string; annotations?: Json };
  }> = [
    {
      name: 'config enabled, inline says nothing: routed',
      config: SEED_ROUTING.routing!,
      want: { path: '/ml/ml-team/conversational-ai' },
    },
    {
      name: 'explicit inline enabled: false beats the config',
      config: SEED_ROUTING.routing!,
      inline: { enabled: false },
      want: { route: false },
    },
    {
      name: 'inline enabled: true turns on routing the config leaves off',
      config: { gatewayRef: gwA },
      inline: { enabled: true },
      want: { path: '/ml-team/0a1b2c3d-uid', parent: gwA },
    },
    {
      name: 'config enabled: false and nothing inline: not routed',
      config: { enabled: false, gatewayRef: gwA },
      want: { route: false },
    },
    {
      name: 'inline gatewayRef replaces the whole ref (no field mixing)',
      config: SEED_ROUTING.routing!,
      inline: { gatewayRef: { name: 'team-gateway', sectionName: 'https' } },
      want: { parent: { name: 'team-gateway', sectionName: 'https' } },
    },
    {
      name: 'inline gatewayRef with its own namespace',
      config: SEED_ROUTING.routing!,
      inline: { gatewayRef: gwB },
      want: { parent: gwB },
    },
    {
      name: 'docs/aim.md override: inline pathTemplate wins',
      config: SEED_ROUTING.routing!,
      inline: { pathTemplate: '/custom/{.metadata.name}' },
      want: { path: '/custom/qwen-chat' },
    },
    {
      name: 'empty inline pathTemplate falls back to the config',
      config: SEED_ROUTING.routing!,
      inline: { pathTemplate: '' },
      want: { path: '/ml/ml-team/conversational-ai' },
    },
    {
      name: 'inline requestTimeout wins',
      config: { ...SEED_ROUTING.routing!, requestTimeout: '30s' },
      inline: { requestTimeout: '2m' },
      want: { timeout: '2m' },
    },
    {
      name: 'annotations merge by key, inline wins',
      config: { ...SEED_ROUTING.routing!, annotations: { a: 'config', b: 'config' } },
      inline: { annotations: { b: 'inline', c: 'inline' } },
      want: { annotations: { a: 'config', b: 'inline', c: 'inline' } },
    },
    {
      name: 'no config path template: the default /<namespace>/<uid>',
      config: { enabled: true, gatewayRef: gwA },
      want: { path: '/ml-team/0a1b2c3d-uid' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const svc = service({ spec: { model: { name: 'qwen-qwen3-32b' }, ...(c.inline ? { routing: c.inline } : {}) } });
      const obs = desire(svc, { namespace: { routing: c.config } });
      const { route, isvc } = applied(obs, svc);
      assert.ok(isvc, 'the InferenceService is planned either way');
      if ('route' in c.want) {
        assert.equal(route, undefined);
        assert.equal(obs.desired?.routing.kind, 'disabled');
        return;
      }
      assert.ok(route, `expected a route, got routing ${JSON.stringify(obs.desired?.routing)}`);
      if (c.want.path) assert.equal(route.spec.rules[0].matches[0].path.value, c.want.path);
      if (c.want.parent)
        assert.deepEqual(route.spec.parentRefs, [
          { group: 'gateway.networking.k8s.io', kind: 'Gateway', ...c.want.parent },
        ]);
      if (c.want.timeout) assert.equal(route.spec.rules[0].timeouts.request, c.want.timeout);
      if (c.want.annotations) assert.deepEqual(route.metadata.annotations, c.want.annotations);
    });
  }

  it('namespace config enabled: false overrides a cluster enabled: true', () => {
    const obs = desire(service(), { cluster: SEED_ROUTING, namespace: { routing: { enabled: false } } });
    assert.equal(obs.desired?.routing.kind, 'disabled');
  });
});

describe('an existing HTTPRoute', () => {
  const svc = service();
  const ownedRoute = (uid: string | undefined) =>
    ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: {
        name: 'qwen-chat',
        namespace: NS,
        ...(uid
          ? {
              ownerReferences: [
                {
                  apiVersion: 'aim.eai.amd.com/v1alpha1',
                  kind: 'AIMService',
                  name: 'qwen-chat',
                  uid,
                  controller: true,
                },
              ],
            }
          : {}),
      },
      spec: {},
    }) as KubeObject;

  it('routing disabled: ours is deleted', () => {
    const { plan } = applied(desire(svc, {}, { route: ownedRoute(svc.metadata.uid) }), svc);
    assert.deepEqual(
      plan.deletes.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`),
      ['HTTPRoute ml-team/qwen-chat'],
    );
  });

  it('routing disabled: a same-named route we do not control is left alone', () => {
    assert.deepEqual(applied(desire(svc, {}, { route: ownedRoute('someone-else') }), svc).plan.deletes, []);
    assert.deepEqual(applied(desire(svc, {}, { route: ownedRoute(undefined) }), svc).plan.deletes, []);
  });

  it('an invalid template: the route is neither re-applied nor deleted, the InferenceService is', () => {
    const bad = service({ metadata: { labels: {} } });
    const { plan, isvc, route } = applied(
      desire(bad, { namespace: SEED_ROUTING }, { route: ownedRoute(bad.metadata.uid) }),
      bad,
    );
    assert.ok(isvc);
    assert.equal(route, undefined);
    assert.deepEqual(plan.deletes, []);
  });
});

describe('runtime config not resolved', () => {
  it('nothing is planned', () => {
    const svc = service();
    const obs = desireService(svc, undefined, fetched(svc));
    assert.equal(obs.desired, undefined);
    assert.ok(planService(svc, obs).isEmpty);
  });
});

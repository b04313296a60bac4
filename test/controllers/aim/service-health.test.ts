// Health of an AIMService's children, its state names, and the shared runtime-config helpers (the label
// propagator and the index that maps config events to consumers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  type HTTPRoute,
  type InferenceService,
  inspectHTTPRoute,
  inspectInferenceService,
  modelKeys,
  serviceHealth,
  serviceModelIndex,
  serviceState,
} from '../../../src/controllers/aim/service/index.ts';
import { runningCacheHealth } from '../../../src/controllers/aim/service/running.ts';
import { configKeyOf, runtimeConfigKeys } from '../../../src/controllers/aim/shared/config-watches.ts';
import { runtimeConfigLabelPropagator } from '../../../src/controllers/aim/shared/label-propagator.ts';
import type { AimRuntimeConfig } from '../../../src/controllers/aim/shared/runtime-config-source.ts';
import { type ComponentState, categorize, FetchResult } from '../../../src/engine/index.ts';
import { fetched, model, service } from './helpers/service-fixtures.ts';

const FIELD = 'spec.routing.gatewayRef of AIMRuntimeConfig ml-team/default';

function route(
  parents: Array<{
    ref?: object;
    accepted?: [string, string, string?];
    resolved?: [string, string, string?];
    gen?: number;
  }>,
  generation = 2,
): HTTPRoute {
  const cond = (type: string, c: [string, string, string?] | undefined, gen: number) =>
    c ? [{ type, status: c[0], reason: c[1], message: c[2] ?? '', observedGeneration: gen }] : [];
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'qwen-chat', namespace: 'ml-team', generation },
    spec: { parentRefs: [{ name: 'kserve-gateway', namespace: 'kgateway-system' }] },
    status: {
      parents: parents.map((p) => ({
        parentRef: (p.ref ?? {
          group: 'gateway.networking.k8s.io',
          kind: 'Gateway',
          name: 'kserve-gateway',
          namespace: 'kgateway-system',
        }) as never,
        controllerName: 'sim',
        conditions: [
          ...cond('Accepted', p.accepted, p.gen ?? generation),
          ...cond('ResolvedRefs', p.resolved, p.gen ?? generation),
        ],
      })),
    },
  };
}

describe('HTTPRouteReady from the gateway verdict on our parentRef', () => {
  const cases: Array<{ name: string; route: HTTPRoute; state: ComponentState; reason: string; message?: RegExp }> = [
    {
      name: 'accepted',
      route: route([{ accepted: ['True', 'Accepted'], resolved: ['True', 'ResolvedRefs'] }]),
      state: 'Ready',
      reason: 'HTTPRouteAccepted',
      message: /accepted by Gateway kgateway-system\/kserve-gateway/,
    },
    {
      name: 'missing gateway: Degraded with the gateway reason, naming the gatewayRef field',
      route: route([
        {
          accepted: ['False', 'NoMatchingParent', 'Gateway kgateway-system/kserve-gateway not found'],
          resolved: ['True', 'ResolvedRefs'],
        },
      ]),
      state: 'Degraded',
      reason: 'NoMatchingParent',
      message:
        /not accepted by Gateway kgateway-system\/kserve-gateway \(spec\.routing\.gatewayRef of AIMRuntimeConfig ml-team\/default\): NoMatchingParent: Gateway kgateway-system\/kserve-gateway not found/,
    },
    {
      name: 'accepted, backend Service not there yet',
      route: route([
        {
          accepted: ['True', 'Accepted'],
          resolved: ['False', 'BackendNotFound', 'Service qwen-chat-predictor not found'],
        },
      ]),
      state: 'Progressing',
      reason: 'BackendNotFound',
    },
    { name: 'no verdict yet', route: route([]), state: 'Progressing', reason: 'HTTPRoutePending' },
    {
      name: 'a verdict for an older generation is ignored',
      route: route([{ accepted: ['False', 'NotAllowedByListeners'], gen: 1 }]),
      state: 'Progressing',
      reason: 'HTTPRoutePending',
    },
    {
      name: 'a verdict about another gateway is not ours',
      route: route([{ ref: { name: 'other', namespace: 'gateways' }, accepted: ['True', 'Accepted'] }]),
      state: 'Progressing',
      reason: 'HTTPRoutePending',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const h = inspectHTTPRoute(c.route, FIELD);
      assert.equal(h.state, c.state);
      assert.equal(h.reason, c.reason);
      assert.equal(h.errors, undefined, 'never a blocking error: a changed gatewayRef must still be applied');
      if (c.message) assert.match(h.message ?? '', c.message);
    });
  }
});

describe('InferenceServiceReady from KServe', () => {
  const isvc = (status: InferenceService['status'], generation = 1): InferenceService => ({
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'qwen-chat', namespace: 'ml-team', generation },
    ...(status ? { status } : {}),
  });
  const cases: Array<{ name: string; isvc: InferenceService; state: ComponentState; reason: string }> = [
    {
      name: 'Ready=True',
      isvc: isvc({ observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }], url: 'http://x' }),
      state: 'Ready',
      reason: 'InferenceServiceReady',
    },
    {
      name: 'pods starting',
      isvc: isvc({
        observedGeneration: 1,
        conditions: [{ type: 'Ready', status: 'False', reason: 'MinimumReplicasUnavailable', message: '0/1 ready' }],
      }),
      state: 'Progressing',
      reason: 'MinimumReplicasUnavailable',
    },
    { name: 'no status yet', isvc: isvc(undefined), state: 'Progressing', reason: 'InferenceServiceNotReady' },
    {
      name: 'KServe has not seen the new generation',
      isvc: isvc({ observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] }, 2),
      state: 'Progressing',
      reason: 'InferenceServiceUpdating',
    },
    {
      name: 'rejected spec',
      isvc: isvc({
        observedGeneration: 1,
        conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidPredictorSpec' }],
        modelStatus: { transitionStatus: 'InvalidSpec' },
      }),
      state: 'Failed',
      reason: 'InvalidPredictorSpec',
    },
    {
      name: 'model failed to load',
      isvc: isvc({
        observedGeneration: 1,
        conditions: [{ type: 'Ready', status: 'False' }],
        modelStatus: {
          transitionStatus: 'BlockedByFailedLoad',
          lastFailureInfo: { reason: 'ModelLoadFailed', message: 'OOMKilled' },
        },
      }),
      state: 'Degraded',
      reason: 'ModelLoadFailed',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const h = inspectInferenceService(c.isvc);
      assert.equal(h.state, c.state);
      assert.equal(h.reason, c.reason);
    });
  }

  it('replicas: 0 is never Running: InferenceServiceReady Unknown ScaledToZero, whatever KServe says of zero pods', () => {
    const ready = isvc({ observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] });
    const svc = service({ spec: { model: { name: 'qwen-qwen3-32b' }, replicas: 0 } });
    const obs = { ...fetched(svc), inferenceService: FetchResult.of<InferenceService>(ready) };
    const h = serviceHealth(obs, undefined, svc).find((x) => x && x.component === 'InferenceService');
    assert.ok(h);
    assert.equal(h.state, 'Pending');
    assert.equal(h.reason, 'ScaledToZero');
    assert.match(h.message ?? '', /spec.replicas is 0: InferenceService ml-team\/qwen-chat runs no pod/);
    const one = service({ spec: { model: { name: 'qwen-qwen3-32b' }, replicas: 1 } });
    const running = serviceHealth(obs, undefined, one).find((x) => x && x.component === 'InferenceService');
    assert.equal(running ? running.state : undefined, 'Ready');
  });
});

describe('InferenceServiceReady before the InferenceService exists', () => {
  it('says it is created once model, template and cache are Ready, not only that it is missing', () => {
    const svc = service({ spec: { model: { name: 'qwen-qwen3-32b' } } });
    const h = serviceHealth(fetched(svc), undefined, svc).find((x) => x && x.component === 'InferenceService');
    assert.ok(h);
    assert.equal(h.errors?.length, 1);
    const e = categorize(h.errors[0]);
    assert.equal(e.reason, 'ResourceNotReady');
    assert.equal(e.category, 'MissingDownstreamDependency');
    assert.equal(
      e.message,
      'InferenceService ml-team/qwen-chat does not exist yet: it is created once the model, template and cache are ' +
        'Ready (ModelReady, TemplateReady, CacheReady say what each waits for)',
    );
  });
});

describe('the cache of a running service', () => {
  const cacheOf = (status: Record<string, unknown>) => ({
    mode: 'Shared' as const,
    name: 'tc',
    cache: FetchResult.of({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMTemplateCache',
      metadata: { name: 'tc', namespace: 'ml-team' },
      spec: { templateName: 't', templateScope: 'Namespace' },
      status,
    } as never),
  });
  it('being rebuilt: CacheRebuilding; failed: says why from the cache, not "rebuilding"', () => {
    const rebuilding = runningCacheHealth(cacheOf({ status: 'Progressing' }), true);
    assert.equal(rebuilding?.reason, 'CacheRebuilding');
    const failed = runningCacheHealth(
      cacheOf({
        status: 'Failed',
        conditions: [{ type: 'Ready', status: 'False', reason: 'TemplateNotFound', message: 'template t is gone' }],
      }),
      true,
    );
    assert.equal(failed?.state, 'Ready', 'the service keeps Running');
    assert.equal(failed?.reason, 'CacheNotReadyWhileServing');
    assert.equal(
      failed?.message,
      'AIMTemplateCache tc is Failed (template t is gone); the running InferenceService keeps serving from the volumes it mounts',
    );
  });
});

describe('AIMService states', () => {
  const table: Array<[ComponentState, string]> = [
    ['Ready', 'Running'],
    ['Running', 'Running'],
    ['Progressing', 'Starting'],
    ['Starting', 'Starting'],
    ['Pending', 'Pending'],
    ['Degraded', 'Degraded'],
    ['NotAvailable', 'Degraded'],
    ['Failed', 'Failed'],
  ];
  for (const [state, want] of table) it(`${state} → ${want}`, () => assert.equal(serviceState(state), want));
});

describe('runtimeConfigLabelPropagator', () => {
  const rc = (enabled: boolean | undefined, match: string[]): AimRuntimeConfig => ({
    name: 'default',
    outcome: 'Resolved',
    spec: { labelPropagation: { ...(enabled === undefined ? {} : { enabled }), match } },
  });
  const parent = service({
    metadata: {
      labels: {
        'org.example/cost-center': 'eng-ml',
        'org.example/team': 'nlp',
        'compliance.example/pci': 'yes',
        env: 'prod',
      },
    },
  });
  const child: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  const cases: Array<{ name: string; config: AimRuntimeConfig | undefined; want: Record<string, string> }> = [
    {
      name: 'exact keys and a prefix wildcard (AIM example 5)',
      config: rc(true, ['org.example/cost-center', 'org.example/team', 'compliance.example/*']),
      want: { 'org.example/cost-center': 'eng-ml', 'org.example/team': 'nlp', 'compliance.example/pci': 'yes' },
    },
    { name: 'disabled', config: rc(false, ['org.example/*']), want: {} },
    { name: 'enabled not set (defaults to off)', config: rc(undefined, ['org.example/*']), want: {} },
    { name: 'no runtime config', config: undefined, want: {} },
  ];
  for (const c of cases) {
    it(c.name, () =>
      assert.deepEqual(runtimeConfigLabelPropagator(child, { parent, runtimeConfig: c.config }), c.want),
    );
  }
});

describe('config and model indexes', () => {
  const consumer = (ns: string | undefined, runtimeConfigName?: string): KubeObject =>
    ({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: ns ? 'AIMModel' : 'AIMClusterModel',
      metadata: { name: 'm', ...(ns ? { namespace: ns } : {}) },
      spec: { image: 'x/y:1', ...(runtimeConfigName !== undefined ? { runtimeConfigName } : {}) },
    }) as KubeObject;
  const cfg = (ns: string | undefined, name: string): KubeObject => ({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: ns ? 'AIMRuntimeConfig' : 'AIMClusterRuntimeConfig',
    metadata: { name, ...(ns ? { namespace: ns } : {}) },
  });

  it('a namespaced consumer is filed under its namespace config and the cluster config of that name', () => {
    const keys = runtimeConfigKeys(consumer('ml-team', 'team'), 'aim-system');
    assert.ok(keys.includes(configKeyOf(cfg('ml-team', 'team'))));
    assert.ok(keys.includes(configKeyOf(cfg(undefined, 'team'))));
    assert.ok(!keys.includes(configKeyOf(cfg('other', 'team'))), 'a config in another namespace never concerns it');
    assert.ok(!keys.includes(configKeyOf(cfg('ml-team', 'default'))));
  });

  it('empty runtimeConfigName resolves `default`', () => {
    assert.deepEqual(
      runtimeConfigKeys(consumer('ml-team', ''), 'aim-system'),
      runtimeConfigKeys(consumer('ml-team'), 'aim-system'),
    );
    assert.ok(runtimeConfigKeys(consumer('ml-team'), 'aim-system').includes(configKeyOf(cfg('ml-team', 'default'))));
  });

  it('a cluster-scoped consumer resolves namespaced configs in the operator namespace', () => {
    const keys = runtimeConfigKeys(consumer(undefined), 'aim-system');
    assert.ok(keys.includes(configKeyOf(cfg('aim-system', 'default'))));
    assert.ok(keys.includes(configKeyOf(cfg(undefined, 'default'))));
  });

  it('services are found from the models they name or whose image they serve', () => {
    const byName = serviceModelIndex(service());
    assert.ok(
      modelKeys(model()).some((k) => byName.includes(k)),
      'namespaced model of that name',
    );
    assert.ok(
      modelKeys(model({ namespace: null })).some((k) => byName.includes(k)),
      'cluster model of that name',
    );
    assert.ok(
      !modelKeys(model({ namespace: 'other' })).some((k) => byName.includes(k)),
      'not a model in another namespace',
    );
    const byImage = serviceModelIndex(service({ spec: { model: { image: 'x/y:1' } } }));
    assert.ok(modelKeys(model({ name: 'anything', image: 'x/y:1' })).some((k) => byImage.includes(k)));
    assert.ok(!modelKeys(model({ name: 'anything', image: 'x/z:1' })).some((k) => byImage.includes(k)));
  });
});

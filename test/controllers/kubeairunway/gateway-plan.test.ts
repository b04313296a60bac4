// The gateway controller's decision, pure: which Gateway, the route it applies or deletes, the status
// fields it owns and GatewayReady (docs/kubeairunway.md, "Gateway").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InferenceProviderConfig, ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  type GatewayInputs,
  gatewayEndpoint,
  MODEL_NAME_HEADER,
  planGateway,
  routedModelName,
  selectGateway,
} from '../../../src/controllers/kubeairunway/gateway/index.ts';
import { holdingStatus } from './gateway-fixtures.ts';

const UID = 'md-uid';
const md = (
  gateway: ModelDeployment['spec']['gateway'],
  status: ModelDeployment['status'] = {
    phase: 'Running',
    provider: { name: 'kaito' },
    endpoint: { service: 'm', port: 80 },
  },
  model: ModelDeployment['spec']['model'] = { id: 'org/model' },
): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'm', namespace: 'ns', uid: UID, generation: 1 },
  spec: { model, ...(gateway ? { gateway } : {}) },
  status,
});
const gw = (name: string, opts: { labelled?: boolean; address?: string; port?: number } = {}) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: {
    name,
    namespace: 'gateways',
    ...(opts.labelled ? { labels: { 'kubeairunway.ai/inference-gateway': 'true' } } : {}),
  },
  spec: { gatewayClassName: 'c', listeners: [{ name: 'http', protocol: 'HTTP', port: opts.port ?? 80 }] },
  status: opts.address === '' ? {} : { addresses: [{ type: 'IPAddress', value: opts.address ?? '10.0.0.1' }] },
});
const route = (opts: { owner?: string; accepted?: 'True' | 'False'; reason?: string; name?: string } = {}) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: {
    name: opts.name ?? 'm',
    namespace: 'ns',
    uid: 'route-uid',
    generation: 1,
    ...(opts.owner
      ? {
          ownerReferences: [
            {
              apiVersion: 'kubeairunway.ai/v1alpha1',
              kind: 'ModelDeployment',
              name: 'm',
              uid: opts.owner,
              controller: true,
            },
          ],
        }
      : {}),
  },
  spec: { parentRefs: [{ name: 'inference', namespace: 'gateways' }] },
  status: opts.accepted
    ? {
        parents: [
          {
            parentRef: { name: 'inference', namespace: 'gateways' },
            controllerName: 'x',
            conditions: [
              {
                type: 'Accepted',
                status: opts.accepted,
                reason: opts.reason ?? (opts.accepted === 'True' ? 'Accepted' : 'NotAllowedByListeners'),
                message: 'm',
                observedGeneration: 1,
              },
            ],
          },
        ],
      }
    : {},
});
const llmd: InferenceProviderConfig = {
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'InferenceProviderConfig',
  metadata: { name: 'llmd' },
  spec: { capabilities: { gateway: { managesInferencePool: true } } },
};
const base = (over: Partial<GatewayInputs> = {}): GatewayInputs => ({
  served: { gatewayApi: true, inferencePool: true },
  gateways: [gw('inference')],
  readyPods: 1,
  peers: [],
  ...over,
});

describe('planGateway', () => {
  const cases: Array<{
    name: string;
    md: ModelDeployment;
    inputs: GatewayInputs;
    verdict?: [string, string] | undefined;
    apply?: boolean;
    deletes?: boolean;
    endpoint?: string;
  }> = [
    {
      name: 'unset, no Gateway API: not applicable',
      md: md(undefined),
      inputs: base({ served: { gatewayApi: false, inferencePool: false } }),
      verdict: undefined,
    },
    {
      name: 'enabled, no Gateway API: CRDsNotAvailable',
      md: md({ enabled: true }),
      inputs: base({ served: { gatewayApi: false, inferencePool: false } }),
      verdict: ['False', 'CRDsNotAvailable'],
    },
    {
      name: 'unset, no Gateway: not applicable',
      md: md(undefined),
      inputs: base({ gateways: [] }),
      verdict: undefined,
    },
    {
      name: 'enabled, no Gateway: NoGateway',
      md: md({ enabled: true }),
      inputs: base({ gateways: [] }),
      verdict: ['False', 'NoGateway'],
    },
    {
      name: 'enabled, two unlabelled Gateways: NoGateway',
      md: md({ enabled: true }),
      inputs: base({ gateways: [gw('a'), gw('b')] }),
      verdict: ['False', 'NoGateway'],
    },
    {
      name: 'disabled with our route: deleted, GatewayDisabled',
      md: md({ enabled: false }),
      inputs: base({ route: route({ owner: UID }) }),
      verdict: ['False', 'GatewayDisabled'],
      deletes: true,
    },
    {
      name: 'disabled with a foreign route: left alone',
      md: md({ enabled: false }),
      inputs: base({ route: route({ owner: 'other' }) }),
      verdict: ['False', 'GatewayDisabled'],
    },
    {
      name: 'not Running and no ready pod: our route goes until one is ready',
      md: md({ enabled: true }, { phase: 'Deploying' }),
      inputs: base({ route: route({ owner: UID }), readyPods: 0 }),
      verdict: ['False', 'DeploymentNotRunning'],
      deletes: true,
    },
    {
      name: 'held at Pending by a rejected edit while its pods serve: the route stays',
      md: md(
        { enabled: true },
        { phase: 'Pending', provider: { name: 'kaito' }, endpoint: { service: 'm', port: 80 } },
      ),
      inputs: base({ route: route({ owner: UID, accepted: 'True' }), readyPods: 2 }),
      verdict: ['True', 'HTTPRouteAccepted'],
      apply: true,
      endpoint: '10.0.0.1',
    },
    {
      name: 'Running but no ready pod behind its Service: NoReadyPods, the route withdrawn',
      md: md({ enabled: true }),
      inputs: base({ route: route({ owner: UID, accepted: 'True' }), readyPods: 0 }),
      verdict: ['False', 'NoReadyPods'],
      deletes: true,
    },
    {
      name: 'scaled to zero on purpose (Running, 0 desired): the route stays for a Gateway that scales from zero',
      md: md(
        { enabled: true },
        {
          phase: 'Running',
          provider: { name: 'kaito' },
          endpoint: { service: 'm', port: 80 },
          replicas: { desired: 0, ready: 0 },
        },
      ),
      inputs: base({ route: route({ owner: UID, accepted: 'True' }), readyPods: 0 }),
      verdict: ['True', 'HTTPRouteAccepted'],
      apply: true,
      endpoint: '10.0.0.1',
    },
    {
      name: 'gatewayRef: that Gateway, labelled or not',
      md: md({ enabled: true, gatewayRef: { name: 'b', namespace: 'gateways' } }),
      inputs: base({ gateways: [gw('a', { labelled: true }), gw('b', { address: '10.0.0.2' })] }),
      verdict: ['Unknown', 'HTTPRoutePending'],
      apply: true,
      endpoint: '10.0.0.2',
    },
    {
      name: 'gatewayRef to a missing Gateway: GatewayNotFound, even with enabled unset',
      md: md({ gatewayRef: { name: 'gone' } }),
      inputs: base({ route: route({ owner: UID }) }),
      verdict: ['False', 'GatewayNotFound'],
      deletes: true,
    },
    {
      name: 'the labelled Gateway it was routed through is gone, only an unlabelled one left: withdrawn, not moved',
      md: md(undefined, {
        phase: 'Running',
        provider: { name: 'kaito' },
        endpoint: { service: 'm', port: 80 },
        gateway: {
          modelName: 'org/model',
          gatewayNamespace: 'gateways',
          gatewayName: 'inference',
          endpoint: '10.0.0.1',
        },
      }),
      inputs: base({ gateways: [gw('kserve-gateway')], route: route({ owner: UID, accepted: 'True' }) }),
      verdict: ['False', 'GatewayNotFound'],
      deletes: true,
    },
    {
      name: 'Running, no route yet: applied, pending',
      md: md({ enabled: true }),
      inputs: base(),
      verdict: ['Unknown', 'HTTPRoutePending'],
      apply: true,
      endpoint: '10.0.0.1',
    },
    {
      name: 'unset but one Gateway: routed (on when a Gateway is detected)',
      md: md(undefined),
      inputs: base({ route: route({ owner: UID, accepted: 'True' }) }),
      verdict: ['True', 'HTTPRouteAccepted'],
      apply: true,
      endpoint: '10.0.0.1',
    },
    {
      name: 'accepted, listener off port 80: the endpoint carries the port',
      md: md({ enabled: true }),
      inputs: base({ gateways: [gw('inference', { port: 8080 })], route: route({ owner: UID, accepted: 'True' }) }),
      verdict: ['True', 'HTTPRouteAccepted'],
      apply: true,
      endpoint: '10.0.0.1:8080',
    },
    {
      name: 'rejected by the Gateway: its reason',
      md: md({ enabled: true }),
      inputs: base({ route: route({ owner: UID, accepted: 'False' }) }),
      verdict: ['False', 'NotAllowedByListeners'],
      apply: true,
      endpoint: '10.0.0.1',
    },
    {
      name: 'accepted but the Gateway has no address: GatewayNotProgrammed',
      md: md({ enabled: true }),
      inputs: base({ gateways: [gw('inference', { address: '' })], route: route({ owner: UID, accepted: 'True' }) }),
      verdict: ['False', 'GatewayNotProgrammed'],
      apply: true,
    },
    {
      name: 'a foreign route of the same name: HTTPRouteConflict, nothing applied',
      md: md({ enabled: true }),
      inputs: base({ route: route({ owner: 'other' }) }),
      verdict: ['False', 'HTTPRouteConflict'],
    },
    {
      name: 'no endpoint reported yet: EndpointPending',
      md: md({ enabled: true }, { phase: 'Running', provider: { name: 'kaito' } }),
      inputs: base(),
      verdict: ['Unknown', 'EndpointPending'],
    },
    {
      name: 'pool provider, pool missing: InferencePoolPending',
      md: md({ enabled: true }, { phase: 'Running', provider: { name: 'llmd' } }),
      inputs: base({ provider: llmd }),
      verdict: ['Unknown', 'InferencePoolPending'],
    },
    {
      name: 'pool provider, pools not served: CRDsNotAvailable',
      md: md({ enabled: true }, { phase: 'Running', provider: { name: 'llmd' } }),
      inputs: base({ provider: llmd, served: { gatewayApi: true, inferencePool: false } }),
      verdict: ['False', 'CRDsNotAvailable'],
    },
    {
      name: 'httpRouteRef to a missing route: HTTPRouteNotFound',
      md: md({ enabled: true, httpRouteRef: 'mine' }),
      inputs: base(),
      verdict: ['False', 'HTTPRouteNotFound'],
    },
    {
      name: 'httpRouteRef accepted: reported, none created, ours deleted',
      md: md({ enabled: true, httpRouteRef: 'mine' }),
      inputs: base({ referencedRoute: route({ name: 'mine', accepted: 'True' }), route: route({ owner: UID }) }),
      verdict: ['True', 'HTTPRouteAccepted'],
      deletes: true,
      endpoint: '10.0.0.1',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planGateway(c.md, c.inputs);
      assert.deepEqual(plan.verdict ? [plan.verdict.status, plan.verdict.reason] : undefined, c.verdict);
      assert.equal(plan.apply !== undefined, c.apply ?? false, 'apply');
      assert.equal(plan.delete !== undefined, c.deletes ?? false, 'delete');
      if (plan.delete) assert.equal(plan.delete.uid, 'route-uid');
      assert.equal(plan.status.gateway?.endpoint, c.endpoint);
      assert.equal(plan.status.endpoint?.gatewayUrl, c.verdict?.[0] === 'True' ? `http://${c.endpoint}` : undefined);
      if (plan.verdict) assert.match(plan.verdict.message, /\S/);
    });
  }

  it('builds the route: Gateway parentRef, model-name header, the Service or the pool as backend', () => {
    const viaService = planGateway(md({ enabled: true }), base()).apply as unknown as { spec: any; metadata: any };
    assert.deepEqual(viaService.spec.parentRefs, [
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'inference', namespace: 'gateways' },
    ]);
    assert.deepEqual(viaService.spec.rules[0].matches, [
      {
        path: { type: 'PathPrefix', value: '/' },
        headers: [{ type: 'Exact', name: MODEL_NAME_HEADER, value: 'org/model' }],
      },
    ]);
    assert.deepEqual(viaService.spec.rules[0].backendRefs, [{ group: '', kind: 'Service', name: 'm', port: 80 }]);
    assert.equal(viaService.spec.rules[0].timeouts.request, '300s');
    assert.equal(viaService.metadata.labels['kubeairunway.ai/model-deployment'], 'm');

    const pool = {
      apiVersion: 'inference.networking.k8s.io/v1',
      kind: 'InferencePool',
      metadata: { name: 'm-pool', namespace: 'ns' },
    };
    const viaPool = planGateway(
      md({ enabled: true }, { phase: 'Running', provider: { name: 'llmd' } }),
      base({ provider: llmd, pool }),
    ).apply as unknown as { spec: any };
    assert.deepEqual(viaPool.spec.rules[0].backendRefs, [
      { group: 'inference.networking.k8s.io', kind: 'InferencePool', name: 'm-pool' },
    ]);
  });
});

describe('model names on a Gateway', () => {
  const holding = holdingStatus;
  const peer = (
    name: string,
    created: string,
    opts: { weight?: number; holds?: boolean; namespace?: string; readyPods?: number } = {},
  ) => ({
    readyPods: opts.readyPods ?? 1,
    md: {
      ...md(opts.weight ? { weight: opts.weight } : undefined, {
        phase: 'Running' as const,
        provider: { name: 'kaito' },
        endpoint: { service: name, port: 80 },
        ...(opts.holds ? holding(created) : {}),
      }),
      metadata: { name, namespace: opts.namespace ?? 'ns', uid: `${name}-uid`, creationTimestamp: created },
    } as ModelDeployment,
  });
  const self = (opts: { weight?: number; created?: string } = {}) => ({
    ...md(opts.weight ? { weight: opts.weight } : undefined),
    metadata: {
      name: 'm',
      namespace: 'ns',
      uid: UID,
      generation: 1,
      creationTimestamp: opts.created ?? '2026-01-02T00:00:00Z',
    },
  });

  it('a later claimant gets ModelNameConflict naming the owner, and no route', () => {
    const plan = planGateway(
      self(),
      base({ peers: [peer('first', '2026-01-01T00:00:00Z', { holds: true })], route: route({ owner: UID }) }),
    );
    assert.deepEqual([plan.verdict?.status, plan.verdict?.reason], ['False', 'ModelNameConflict']);
    assert.match(
      plan.verdict!.message,
      /model name "org\/model" on Gateway gateways\/inference is already served by ModelDeployment ns\/first, which claimed it first/,
    );
    assert.equal(plan.apply, undefined);
    assert.equal(plan.delete?.uid, 'route-uid', 'a route it held before is withdrawn');
    assert.deepEqual(
      plan.status.gateway,
      { gatewayNamespace: 'gateways', gatewayName: 'inference' },
      'no claim on the name, only the Gateway it was judged on',
    );
  });

  it('the holder keeps the name against an older deployment that starts serving later', () => {
    const plan = planGateway(
      self({ created: '2026-01-05T00:00:00Z' }),
      base({ peers: [peer('older', '2026-01-01T00:00:00Z')] }),
    );
    assert.equal(plan.verdict?.reason, 'ModelNameConflict', 'neither holds yet: the oldest claims it');
    const holder = { ...self({ created: '2026-01-05T00:00:00Z' }) };
    holder.status = { ...holder.status, ...holding('2026-01-05T00:00:00Z') };
    const kept = planGateway(holder, base({ peers: [peer('older', '2026-01-01T00:00:00Z')] }));
    assert.notEqual(kept.verdict?.reason, 'ModelNameConflict');
    assert.ok(kept.apply);
  });

  it('a claimant that does not serve (no ready pod), is disabled or routes elsewhere does not take the name', () => {
    for (const p of [
      peer('idle', '2026-01-01T00:00:00Z', { holds: true, readyPods: 0 }),
      {
        ...peer('off', '2026-01-01T00:00:00Z', { holds: true }),
        md: {
          ...peer('off', '2026-01-01T00:00:00Z').md,
          spec: { model: { id: 'org/model' }, gateway: { enabled: false } },
        },
      },
    ]) {
      const plan = planGateway(self(), base({ peers: [p] }));
      assert.ok(plan.apply, p.md.metadata.name);
    }
    const elsewhere = peer('other-gw', '2026-01-01T00:00:00Z');
    elsewhere.md.spec.gateway = { gatewayRef: { name: 'b', namespace: 'gateways' } };
    const plan = planGateway(self(), base({ gateways: [gw('inference'), gw('b')], peers: [elsewhere] }));
    assert.equal(plan.verdict, undefined, 'two unlabelled Gateways and enabled unset: self is simply not routed');
    const labelled = planGateway(
      self(),
      base({ gateways: [gw('inference', { labelled: true }), gw('b')], peers: [elsewhere] }),
    );
    assert.ok(labelled.apply, 'the same name on another Gateway is no conflict');
  });

  it('deployments that all set spec.gateway.weight share the name: one route, a weighted backend each', () => {
    const owner = planGateway(
      self({ weight: 3, created: '2026-01-01T00:00:00Z' }),
      base({
        peers: [peer('canary', '2026-01-02T00:00:00Z', { weight: 1 })],
        peerBackends: new Map([['canary-uid', { kind: 'Service' as const, name: 'canary', port: 80 }]]),
      }),
    ).apply as unknown as { spec: any };
    assert.deepEqual(owner.spec.rules[0].backendRefs, [
      { group: '', kind: 'Service', name: 'm', port: 80, weight: 3 },
      { group: '', kind: 'Service', name: 'canary', port: 80, weight: 1 },
    ]);
    const sharer = planGateway(
      self({ weight: 1 }),
      base({
        peers: [peer('first', '2026-01-01T00:00:00Z', { weight: 3, holds: true })],
        route: route({ owner: UID }),
      }),
    );
    assert.deepEqual([sharer.verdict?.status, sharer.verdict?.reason], ['True', 'ModelNameShared']);
    assert.match(sharer.verdict!.message, /with weight 1 through HTTPRoute ns\/first/);
    assert.equal(sharer.apply, undefined);
    assert.equal(sharer.delete?.uid, 'route-uid');
    // only when both ask, and only in one namespace
    assert.equal(
      planGateway(self(), base({ peers: [peer('first', '2026-01-01T00:00:00Z', { weight: 3, holds: true })] })).verdict
        ?.reason,
      'ModelNameConflict',
    );
    assert.equal(
      planGateway(
        self({ weight: 1 }),
        base({ peers: [peer('first', '2026-01-01T00:00:00Z', { weight: 3, holds: true, namespace: 'other' })] }),
      ).verdict?.reason,
      'ModelNameConflict',
    );
  });
});

describe('routedModelName', () => {
  const cases: Array<[string, ModelDeployment, string]> = [
    [
      'gateway.modelName first',
      md({ modelName: 'alias' }, undefined, { id: 'org/model', servedName: 'served' }),
      'alias',
    ],
    ['then model.servedName', md(undefined, undefined, { id: 'org/model', servedName: 'served' }), 'served'],
    ['then model.id', md(undefined, undefined, { id: 'org/model' }), 'org/model'],
  ];
  for (const [name, m, want] of cases) it(name, () => assert.equal(routedModelName(m), want));
});

describe('selectGateway', () => {
  it('the gatewayRef, else the configured one, else the first labelled one, else the only one', () => {
    const configured = { namespace: 'gateways', name: 'b' };
    assert.equal(selectGateway([gw('a'), gw('b')], { configured }).gateway?.metadata.name, 'b');
    assert.equal(
      selectGateway([gw('a'), gw('b')], { configured, ref: { namespace: 'gateways', name: 'a' } }).gateway?.metadata
        .name,
      'a',
    );
    assert.match(
      (selectGateway([gw('a')], { configured: { namespace: 'gateways', name: 'x' } }) as { message: string }).message,
      /gateways\/x .*does not exist/,
    );
    // routed through a Gateway that is gone: never moved to the only one left, unless it is labelled
    const previous = { namespace: 'gateways', name: 'inference' };
    assert.equal(selectGateway([gw('kserve')], { previous }).gateway, undefined);
    assert.equal(selectGateway([gw('kserve', { labelled: true })], { previous }).gateway?.metadata.name, 'kserve');
    assert.equal(selectGateway([gw('inference')], { previous }).gateway?.metadata.name, 'inference', 'recreated');
    assert.equal(selectGateway([gw('only')]).gateway?.metadata.name, 'only');
    assert.equal(
      selectGateway([gw('a'), gw('c', { labelled: true }), gw('b', { labelled: true })]).gateway?.metadata.name,
      'b',
    );
    assert.match(
      (selectGateway([gw('a'), gw('b')]) as { message: string }).message,
      /none is labelled kubeairunway.ai\/inference-gateway=true/,
    );
  });
});

describe('gatewayEndpoint', () => {
  it('the first address, with the listener port off 80; an implementation-specific address as it is', () => {
    assert.equal(gatewayEndpoint(gw('a')), '10.0.0.1');
    assert.equal(gatewayEndpoint(gw('a', { port: 8080 })), '10.0.0.1:8080');
    assert.equal(gatewayEndpoint(gw('a', { address: '' })), undefined);
    const hostPort = {
      ...gw('a'),
      status: { addresses: [{ type: 'sim.modelplane.io/HostPort', value: '127.0.0.1:4000' }] },
    };
    assert.equal(gatewayEndpoint(hostPort), '127.0.0.1:4000');
  });
});

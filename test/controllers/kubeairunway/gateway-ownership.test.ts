// Who owns a model name on a Gateway when claimants race (docs/kubeairunway.md, "Model names on a
// Gateway"): the controller's decisions in one process, the status of the first one still unwritten; the
// admission warning for a name already held or claimed; a Gateway that loses its label.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import { type GatewayInputs, planGateway, selectGateway } from '../../../src/controllers/kubeairunway/gateway/index.ts';
import { nameClaimWarning, RouteClaims } from '../../../src/controllers/kubeairunway/gateway/ownership.ts';
import { gatewayReconciler } from '../../../src/controllers/kubeairunway/gateway/reconciler.ts';
import { holdingStatus } from './gateway-fixtures.ts';

const SECOND = '2026-01-01T00:00:00Z';
const gateway = (name: string, labelled = true) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: {
    name,
    namespace: 'gateways',
    ...(labelled ? { labels: { 'kubeairunway.ai/inference-gateway': 'true' } } : {}),
  },
  spec: { gatewayClassName: 'c', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
  status: { addresses: [{ type: 'IPAddress', value: '10.0.0.1' }] },
});

const deployment = (
  name: string,
  opts: { namespace?: string; gateway?: ModelDeployment['spec']['gateway']; holds?: boolean } = {},
): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: {
    name,
    namespace: opts.namespace ?? 'ns',
    uid: `${name}-uid`,
    generation: 1,
    creationTimestamp: SECOND,
  },
  spec: { model: { id: 'org/model' }, ...(opts.gateway ? { gateway: opts.gateway } : {}) },
  status: {
    phase: 'Running',
    provider: { name: 'kaito' },
    endpoint: { service: name, port: 80 },
    replicas: { desired: 1, ready: 1 },
    ...(opts.holds ? holdingStatus(SECOND) : {}),
  },
});

const inputs = (peers: ModelDeployment[], over: Partial<GatewayInputs> = {}): GatewayInputs => ({
  served: { gatewayApi: true, inferencePool: true },
  gateways: [gateway('inference')],
  readyPods: 1,
  peers: peers.map((md) => ({ md, readyPods: 1 })),
  ...over,
});

describe('model-name ownership when claimants race', () => {
  // z serves first and is routed; its status (the route it holds) is written only after the settle window.
  // a, created in the same second (a < z), gets its first ready pod in between.
  const z = deployment('z');
  const a = deployment('a');

  it('without the controller’s memory, the later claimant would take the name too: two routes', () => {
    const first = planGateway(z, inputs([{ ...a, status: { ...a.status!, replicas: { ready: 0 } } }], { peers: [] }));
    assert.ok(first.apply, 'z is routed');
    const second = planGateway(a, inputs([z]));
    assert.ok(second.apply, 'a sees no holder (the status is not written yet) and wins by name');
  });

  it('with it, the deployment routed first keeps the name whatever its name, and the other gets the conflict', () => {
    const claims = new RouteClaims();
    const r = gatewayReconciler({ claims });
    const compose = (md: ModelDeployment, i: GatewayInputs) => r.composeState!({ object: md } as never, i);
    assert.ok(compose(z, inputs([], { peers: [] })).apply, 'z is routed');
    assert.equal(claims.holder('gateways/inference', 'org/model'), 'z-uid');
    const second = compose(a, inputs([z]));
    assert.equal(second.apply, undefined, 'a is not routed');
    assert.equal(second.verdict?.reason, 'ModelNameConflict');
    assert.match(second.verdict!.message, /already served by ModelDeployment ns\/z/);
    assert.ok(compose(z, inputs([a])).apply, 'z keeps it when judged again');
    // z leaves the name (disabled): the claim is released, and a takes it over
    const off = { ...z, spec: { ...z.spec, gateway: { enabled: false } } };
    assert.equal(compose(off, inputs([a])).apply, undefined);
    assert.equal(claims.holder('gateways/inference', 'org/model'), undefined);
    assert.ok(compose(a, inputs([off])).apply, 'a is routed');
    assert.equal(claims.holder('gateways/inference', 'org/model'), 'a-uid');
  });

  it('neither routed yet: the oldest, then namespace/name, whatever order they are judged in', () => {
    for (const order of [
      [a, z],
      [z, a],
    ]) {
      const claims = new RouteClaims();
      const r = gatewayReconciler({ claims });
      const owners = order.map(
        (md) =>
          r.composeState!({ object: md } as never, inputs(order.filter((o) => o !== md))).claim !== undefined &&
          md.metadata.name,
      );
      assert.deepEqual(owners.filter(Boolean), ['a'], order.map((o) => o.metadata.name).join(' then '));
    }
  });

  it('a claim is released when its deployment goes, and a stale one of a deployment gone is ignored', () => {
    const claims = new RouteClaims();
    claims.record('z-uid', { gateway: 'gateways/inference', modelName: 'org/model' });
    claims.record('z-uid', { gateway: 'gateways/inference', modelName: 'other' });
    assert.equal(claims.holder('gateways/inference', 'org/model'), undefined, 'a new name releases the old');
    claims.record('a-uid', { gateway: 'gateways/inference', modelName: 'other' });
    claims.forget('z-uid');
    assert.equal(claims.holder('gateways/inference', 'other'), 'a-uid', 'z going does not release a’s claim');
    // the holder in memory is not among the serving claimants (deleted, no ready pod): the name is free
    const plan = planGateway(z, inputs([], { routedBy: () => 'gone-uid' }));
    assert.ok(plan.apply);
  });
});

/** a deployment that lost the name (GatewayReady=False ModelNameConflict) */
const lost = (name: string): ModelDeployment => {
  const md = deployment(name);
  md.status!.conditions = [
    { type: 'GatewayReady', status: 'False', reason: 'ModelNameConflict', message: '', lastTransitionTime: SECOND },
  ];
  return md;
};

describe('an owner whose pods are gone for a while', () => {
  const NOW = '2026-01-02T00:00:00Z';
  const owner = deployment('owner');
  owner.metadata.creationTimestamp = SECOND;
  const waiting = (md: ModelDeployment, reason: string): ModelDeployment => ({
    ...md,
    status: {
      ...md.status!,
      replicas: { desired: 1, ready: 0 },
      gateway: { modelName: 'org/model', gatewayNamespace: 'gateways', gatewayName: 'inference' },
      conditions: [{ type: 'GatewayReady', status: 'False', reason, message: '', lastTransitionTime: NOW }],
    },
  });
  const later = { ...deployment('later'), metadata: { ...deployment('later').metadata, creationTimestamp: NOW } };

  it('keeps its claim while another serves the name, and takes it back when a pod is ready again', () => {
    // the owner loses its pods: withdrawn, but status.gateway (its claim) stays, without an endpoint
    const held = { ...owner, status: { ...owner.status!, ...holdingStatus(SECOND), replicas: { ready: 0 } } };
    const down = planGateway(held, inputs([later], { readyPods: 0 }));
    assert.equal(down.apply, undefined);
    assert.deepEqual(down.status.gateway, {
      modelName: 'org/model',
      gatewayNamespace: 'gateways',
      gatewayName: 'inference',
    });
    // meanwhile the later claimant serves the name
    const meanwhile = planGateway(later, inputs([], { peers: [{ md: waiting(owner, 'NoReadyPods'), readyPods: 0 }] }));
    assert.ok(meanwhile.apply, 'the later claimant is routed while the owner has no ready pod');
    const laterHolding = { ...later, status: { ...later.status!, ...holdingStatus(NOW) } };
    for (const reason of ['NoReadyPods', 'DeploymentNotRunning']) {
      const back = { ...waiting(owner, reason), status: { ...waiting(owner, reason).status!, replicas: { ready: 1 } } };
      assert.ok(planGateway(back, inputs([laterHolding])).apply, `${reason}: the owner takes its name back`);
      assert.equal(planGateway(laterHolding, inputs([back])).verdict?.reason, 'ModelNameConflict');
    }
  });

  it('a claim given up (renamed away, disabled, lost in a conflict) is not kept', () => {
    const renamed = { ...owner, spec: { ...owner.spec, gateway: { modelName: 'other' } } };
    const plan = planGateway(
      { ...renamed, status: waiting(owner, 'NoReadyPods').status! },
      inputs([], { readyPods: 0 }),
    );
    assert.deepEqual(
      plan.status.gateway,
      { gatewayNamespace: 'gateways', gatewayName: 'inference' },
      'the claim was on org/model: only the Gateway it was judged on stays',
    );
    const conflicted = {
      ...waiting(owner, 'ModelNameConflict'),
      status: { ...waiting(owner, 'ModelNameConflict').status! },
    };
    conflicted.status.replicas = { ready: 1 };
    const laterHolding = { ...later, status: { ...later.status!, ...holdingStatus(NOW) } };
    assert.equal(planGateway(conflicted, inputs([laterHolding])).verdict?.reason, 'ModelNameConflict');
  });
});

describe('nameClaimWarning', () => {
  it('names the holder of the name and its Gateway', () => {
    const w = nameClaimWarning(deployment('b'), [deployment('owner', { holds: true })], 'org/model');
    assert.match(
      w ?? '',
      /^spec\.gateway: model name "org\/model" is already served through Gateway gateways\/inference by ModelDeployment ns\/owner; .*ModelNameConflict.*set spec\.gateway\.weight on both/,
    );
  });

  it('names a claimant not routed yet (both created in one apply)', () => {
    const w = nameClaimWarning(deployment('b'), [deployment('a', { namespace: 'other' })], 'org/model');
    assert.match(
      w ?? '',
      /^spec\.gateway: model name "org\/model" is also claimed by ModelDeployment other\/a, not routed yet; .*the first with a ready pod.*ModelNameConflict\): set another spec\.gateway\.modelName$/,
    );
  });

  it('stays quiet for itself, sharers by weight, disabled or own-route claimants, and another Gateway', () => {
    const weighted = { weight: 10 };
    const refTo = (name: string) => ({ gatewayRef: { name, namespace: 'gateways' } });
    const quiet: Array<[string, ModelDeployment, ModelDeployment]> = [
      ['itself', deployment('a'), deployment('a', { holds: true })],
      ['weights', deployment('b', { gateway: weighted }), deployment('a', { gateway: weighted, holds: true })],
      ['disabled', deployment('b', { gateway: { enabled: false } }), deployment('a', { holds: true })],
      ['httpRouteRef', deployment('b', { gateway: { httpRouteRef: 'r' } }), deployment('a', { holds: true })],
      ['other disabled', deployment('b'), deployment('a', { gateway: { enabled: false } })],
      ['gatewayRefs apart', deployment('b', { gateway: refTo('x') }), deployment('a', { gateway: refTo('y') })],
      ['held elsewhere', deployment('b', { gateway: refTo('x') }), deployment('a', { holds: true })],
      // the owner edited: the deployment that lost the name to it is no news
      ['the owner', deployment('b', { holds: true }), lost('a')],
      ['lost already', deployment('b'), lost('a')],
    ];
    for (const [name, md, other] of quiet) assert.equal(nameClaimWarning(md, [other], 'org/model'), undefined, name);
  });
});

describe('a Gateway that loses its label', () => {
  it('withdraws the route with a message saying so, never moving it to an unlabelled Gateway', () => {
    const previous = { namespace: 'gateways', name: 'inference' };
    const choice = selectGateway([gateway('inference', false), gateway('kserve', false)], { previous });
    assert.equal(choice.gateway, undefined);
    assert.equal((choice as { reason: string }).reason, 'GatewayNotFound');
    assert.match(
      (choice as { message: string }).message,
      /^Gateway gateways\/inference, which routed it, is no longer labelled kubeairunway\.ai\/inference-gateway=true, and the cluster has 2 Gateways/,
    );
    assert.match(
      (selectGateway([gateway('kserve', false)], { previous }) as { message: string }).message,
      /gateways\/inference, which routed it, is gone, and the route is not moved to gateways\/kserve/,
    );
    assert.equal(
      selectGateway([gateway('inference', false), gateway('other')], { previous }).gateway?.metadata.name,
      'other',
      'the label moved to another Gateway: routed there',
    );
  });
});

describe('the labelled Gateway goes under deployments it never routed', () => {
  // what the gateway controller writes back: its plan's status.gateway and GatewayReady
  const judged = (md: ModelDeployment, over: Partial<GatewayInputs>): ModelDeployment => {
    const plan = planGateway(md, inputs([deployment('a', { holds: true })], over));
    const conditions = plan.verdict
      ? [{ type: 'GatewayReady', ...plan.verdict, lastTransitionTime: SECOND }]
      : (md.status?.conditions ?? []);
    const status = { ...md.status, conditions } as NonNullable<ModelDeployment['status']>;
    if (plan.status.gateway) status.gateway = plan.status.gateway;
    else delete status.gateway;
    return { ...md, status };
  };
  const onlyKserve = { gateways: [gateway('kserve', false)] };

  it('a claimant that lost the name is not routed through the unlabelled Gateway left', () => {
    const lost = judged(deployment('b'), {});
    assert.equal(lost.status?.conditions?.[0]?.reason, 'ModelNameConflict');
    assert.deepEqual(lost.status?.gateway, { gatewayNamespace: 'gateways', gatewayName: 'inference' });
    const plan = planGateway(lost, inputs([], onlyKserve));
    assert.equal(plan.apply, undefined, 'no route on gateways/kserve');
    assert.equal(plan.verdict?.reason, 'GatewayNotFound');
    assert.equal(
      plan.verdict?.message,
      'ModelDeployment ns/b: Gateway gateways/inference, which it was judged on, is gone, and the route is not moved to gateways/kserve, which is not labelled kubeairunway.ai/inference-gateway=true: label the Gateway to route through, or name it in spec.gateway.gatewayRef',
    );
  });

  it('a deployment still waiting for a ready pod is not routed there once it has one', () => {
    const waiting = judged(deployment('c', { gateway: { modelName: 'other/model' } }), { readyPods: 0 });
    assert.equal(waiting.status?.gateway?.modelName, undefined, 'no claim on its name while not serving');
    assert.equal(waiting.status?.gateway?.gatewayName, 'inference');
    const plan = planGateway(waiting, inputs([], onlyKserve));
    assert.equal(plan.apply, undefined);
    assert.equal(plan.verdict?.reason, 'GatewayNotFound');
  });

  it('when the Gateway is back, its owner keeps the name against an older deployment that had lost it', () => {
    const ownerSince = '2026-01-05T00:00:00Z';
    const owner = {
      ...deployment('young', { holds: true }),
      metadata: { ...deployment('young').metadata, creationTimestamp: ownerSince },
    };
    const older = {
      ...deployment('old'),
      status: { ...deployment('old').status!, ...judged(deployment('old'), {}).status },
    };
    assert.equal(older.status.conditions?.[0]?.reason, 'ModelNameConflict', 'old lost the name to young');
    // deleted with no Gateway left, or with KServe's unlabelled one left
    for (const gone of [{ gateways: [] as ReturnType<typeof gateway>[] }, onlyKserve]) {
      const judgedGone = (md: ModelDeployment, peers: ModelDeployment[]) => {
        const plan = planGateway(md, inputs(peers, gone));
        const status = {
          ...md.status!,
          conditions: [{ type: 'GatewayReady', ...plan.verdict!, lastTransitionTime: SECOND }],
        };
        if (plan.status.gateway) status.gateway = plan.status.gateway;
        return { ...md, status } as ModelDeployment;
      };
      const ownerGone = judgedGone(owner, [older]);
      const olderGone = judgedGone(older, [owner]);
      assert.equal(
        ownerGone.status?.gateway?.modelName,
        'org/model',
        'the owner keeps its claim while its Gateway is gone',
      );
      assert.equal(olderGone.status?.gateway?.modelName, undefined);
      // the labelled Gateway is created again: both serve, both are judged
      const back = { gateways: [gateway('inference')] };
      const kept = planGateway(ownerGone, inputs([olderGone], back));
      assert.equal(kept.apply?.kind, 'HTTPRoute', JSON.stringify(kept.verdict));
      const lost = planGateway(olderGone, inputs([ownerGone], back));
      assert.equal(lost.apply, undefined);
      assert.equal(lost.verdict?.reason, 'ModelNameConflict');
      assert.match(lost.verdict?.message ?? '', /already served by ModelDeployment ns\/young/);
    }
  });

  it('a deployment never judged on a Gateway is still routed through the only one', () => {
    const plan = planGateway(deployment('d', { gateway: { modelName: 'third/model' } }), inputs([], onlyKserve));
    assert.equal(plan.apply?.kind, 'HTTPRoute');
  });
});

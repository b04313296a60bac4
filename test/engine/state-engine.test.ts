import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  authError,
  type ComponentHealth,
  decide,
  infrastructureError,
  invalidSpecError,
  missingDownstreamError,
  missingUpstreamError,
  RequeueError,
  resourceExhaustionError,
  toResult,
} from '../../src/engine/index.ts';
import { apiError } from './helpers/fake-cluster.ts';
import { Harness } from './helpers/scenario.ts';

const ready = (component: string, extra: Partial<ComponentHealth> = {}): ComponentHealth => ({
  component,
  state: 'Ready',
  reason: `${component}Found`,
  message: `${component} ok`,
  ...extra,
});

// docs/controllers.md's error table, one row each: what the component reports, and what the engine must do.
const TABLE = [
  {
    row: 'Infrastructure',
    error: apiError(503, 'ServiceUnavailable'),
    apply: false,
    requeue: true,
    parent: ['DependenciesReachable', 'InfrastructureError'],
    state: 'Degraded',
    componentStatus: 'False',
  },
  {
    row: 'Infrastructure (network)',
    error: infrastructureError(undefined, 'connect ECONNREFUSED'),
    apply: false,
    requeue: true,
    parent: ['DependenciesReachable', 'InfrastructureError'],
    state: 'Degraded',
    componentStatus: 'False',
  },
  {
    row: 'Auth',
    error: apiError(403, 'Forbidden'),
    apply: false,
    requeue: false,
    parent: ['AuthValid', 'AuthError'],
    state: 'Failed',
    componentStatus: 'False',
    ready: 'AuthError',
  },
  {
    row: 'InvalidSpec',
    error: apiError(422, 'Invalid'),
    apply: false,
    requeue: false,
    parent: ['ConfigValid', 'InvalidSpec'],
    state: 'Failed',
    componentStatus: 'False',
    ready: 'InvalidSpec',
  },
  {
    row: 'MissingUpstreamDependency',
    error: missingUpstreamError('ReferenceNotFound', 'ConfigMap ns/user-config not found'),
    apply: false,
    requeue: false,
    parent: ['ConfigValid', 'ReferenceNotFound'],
    state: 'Failed',
    componentStatus: 'False',
    ready: 'ReferenceNotFound',
  },
  {
    row: 'MissingDownstreamDependency',
    error: missingDownstreamError('ResourceNotReady', 'Deployment ns/x does not exist yet'),
    apply: true,
    requeue: false,
    parent: undefined,
    state: 'Progressing',
    componentStatus: 'Unknown',
  },
  {
    row: 'ResourceExhaustion',
    error: resourceExhaustionError('PodOOMKilled', 'pod p was OOMKilled'),
    apply: false,
    requeue: false,
    parent: undefined,
    state: 'Failed',
    componentStatus: 'False',
    ready: 'PodOOMKilled',
  },
] as const;

describe('state engine: every row of docs/controllers.md error table', () => {
  for (const t of TABLE) {
    it(`${t.row}: apply=${t.apply} requeue=${t.requeue} parent=${t.parent?.join('/') ?? 'none'} status=${t.state}`, async () => {
      const h = new Harness();
      h.scenario.health = [ready('Model'), { component: 'Storage', errors: [t.error] }];
      let outcome = await h.run();
      if (t.requeue) {
        // infrastructure errors are held for the grace period; run again once it is over
        h.clock.advance(10_001);
        outcome = await h.run();
      }
      assert.equal(outcome.decision!.shouldApply, t.apply, 'apply decision');
      assert.equal(h.childApplied, t.apply, 'child applied');
      assert.equal(outcome.requeueWithBackoff, t.requeue, 'requeue');
      if (t.requeue) assert.throws(() => toResult(outcome), RequeueError);
      else assert.deepEqual(toResult(outcome), {});
      assert.equal(h.state, t.state);
      assert.equal(h.condition('StorageReady')?.status, t.componentStatus);
      assert.equal(h.condition('ModelReady')?.status, 'True');
      const parents = ['AuthValid', 'ConfigValid', 'DependenciesReachable'];
      if (t.parent) {
        assert.equal(h.condition(t.parent[0])?.status, 'False');
        assert.equal(h.condition(t.parent[0])?.reason, t.parent[1]);
      }
      // no other parent condition is invented
      for (const p of parents)
        if (p !== t.parent?.[0]) assert.equal(h.condition(p), undefined, `${p} should not exist`);
      if ('ready' in t) assert.equal(h.condition('Ready')?.reason, t.ready);
      assert.equal(h.condition('Ready')?.status, 'False');
    });
  }

  it('decide() alone: nothing ⇒ apply; a blocking category ⇒ no apply, no requeue; infrastructure ⇒ requeue', () => {
    assert.deepEqual(decide([]), { shouldApply: true, requeueWithBackoff: false, blockedBy: [] });
    assert.deepEqual(decide([missingDownstreamError(undefined, 'x')]), {
      shouldApply: true,
      requeueWithBackoff: false,
      blockedBy: [],
    });
    for (const e of [
      authError(undefined, 'x'),
      invalidSpecError(undefined, 'x'),
      missingUpstreamError(undefined, 'x'),
      resourceExhaustionError(undefined, 'x'),
    ]) {
      const d = decide([e]);
      assert.equal(d.shouldApply, false, e.category);
      assert.equal(d.requeueWithBackoff, false, e.category);
    }
    assert.deepEqual(decide([infrastructureError(undefined, 'x')]), {
      shouldApply: false,
      requeueWithBackoff: true,
      blockedBy: ['Infrastructure'],
    });
  });
});

describe('state engine: mixed errors', () => {
  it('infrastructure wins the decision (no apply, requeue) while the auth error still fails the object', async () => {
    const h = new Harness();
    h.scenario.health = [
      { component: 'Model', errors: [apiError(403)] },
      { component: 'Storage', errors: [apiError(500)] },
    ];
    const outcome = await h.run();
    assert.equal(outcome.decision!.shouldApply, false);
    assert.equal(outcome.requeueWithBackoff, true);
    assert.equal(h.childApplied, false);
    assert.equal(h.condition('AuthValid')?.status, 'False');
    assert.equal(h.state, 'Failed');
    assert.equal(h.condition('Ready')?.reason, 'AuthError');
  });

  it('Ready names the worst blocking category: AuthError > InvalidSpec > ReferenceNotFound', async () => {
    const h = new Harness();
    h.scenario.health = [
      { component: 'A', errors: [missingUpstreamError('ReferenceNotFound', 'a missing')] },
      { component: 'B', errors: [apiError(422)] },
    ];
    await h.run();
    assert.equal(h.condition('Ready')?.reason, 'InvalidSpec');
    assert.equal(
      h.condition('ConfigValid')?.reason,
      'InvalidSpec',
      'InvalidSpec outranks ReferenceNotFound on ConfigValid',
    );
    h.scenario.health.push({ component: 'C', errors: [apiError(401)] });
    await h.run();
    assert.equal(h.condition('Ready')?.reason, 'AuthError');
  });
});

describe('state engine: the 10-second grace period for infrastructure errors', () => {
  async function readyHarness(): Promise<Harness> {
    const h = new Harness();
    h.scenario.health = [ready('Model'), ready('Storage')];
    await h.run();
    assert.equal(h.state, 'Ready');
    return h;
  }

  it('within the grace period: conditions and status untouched, no events, no apply, retried', async () => {
    const h = await readyHarness();
    const before = structuredClone(h.object.status);
    h.clock.advance(60_000);
    h.scenario.health = [ready('Model'), { component: 'Storage', errors: [apiError(503)] }];
    for (const step of [0, 4_000, 5_999]) {
      h.clock.advance(step);
      const outcome = await h.run();
      assert.equal(outcome.grace!.withinGrace, true);
      assert.equal(outcome.requeueWithBackoff, true);
      assert.equal(h.childApplied, false);
      assert.equal(h.cluster.count('applyStatus'), 0, 'no status write');
      assert.deepEqual(h.cluster.events, []);
    }
    assert.deepEqual(h.object.status, before);
    assert.equal(h.condition('DependenciesReachable'), undefined);
  });

  it('after the grace period: DependenciesReachable=False, the component False, Degraded; recovery restores Ready and keeps DependenciesReachable=True', async () => {
    const h = await readyHarness();
    h.scenario.health = [ready('Model'), { component: 'Storage', errors: [apiError(503)] }];
    await h.run();
    h.clock.advance(9_999);
    await h.run();
    assert.equal(h.state, 'Ready');
    h.clock.advance(2);
    const outcome = await h.run();
    assert.equal(outcome.grace!.withinGrace, false);
    assert.equal(h.condition('DependenciesReachable')?.status, 'False');
    assert.equal(h.condition('DependenciesReachable')?.reason, 'InfrastructureError');
    assert.equal(h.condition('StorageReady')?.status, 'False');
    assert.equal(h.condition('ModelReady')?.status, 'True');
    assert.equal(h.state, 'Degraded');
    assert.equal(h.condition('Ready')?.status, 'False');
    assert.ok(h.cluster.events.some((e) => e.type === 'Warning' && e.reason === 'InfrastructureError'));

    h.scenario.health = [ready('Model'), ready('Storage')];
    h.clock.advance(1_000);
    const recovered = await h.run();
    assert.equal(recovered.requeueWithBackoff, false);
    assert.equal(h.state, 'Ready');
    assert.equal(h.condition('DependenciesReachable')?.status, 'True');
    assert.equal(h.condition('DependenciesReachable')?.reason, 'Reachable');
    assert.equal(h.condition('Ready')?.status, 'True');
    assert.equal(recovered.decision!.shouldApply, true);
  });

  it('a new outage after recovery starts a new grace period', async () => {
    const h = await readyHarness();
    h.scenario.health = [{ component: 'Model', errors: [apiError(503)] }, ready('Storage')];
    await h.run();
    h.clock.advance(10_001);
    await h.run();
    assert.equal(h.state, 'Degraded');
    h.scenario.health = [ready('Model'), ready('Storage')];
    await h.run();
    assert.equal(h.state, 'Ready');
    h.scenario.health = [{ component: 'Model', errors: [apiError(503)] }, ready('Storage')];
    h.clock.advance(1_000);
    await h.run();
    assert.equal(h.state, 'Ready', 'held again');
    assert.equal(h.condition('DependenciesReachable')?.status, 'True');
  });

  it('apply failures are infrastructure errors with the same grace period', async () => {
    const h = await readyHarness();
    // the child exists now; change the spec so it must be re-applied
    const w = h.object;
    w.spec.value = 'v2';
    h.cluster.put(w);
    h.cluster.faults = [(verb) => (verb === 'apply' ? apiError(503) : undefined)];
    const first = await h.run();
    assert.equal(first.apply!.errors.length, 1);
    assert.match(first.apply!.errors[0]!.message, /apply ConfigMap ns\/w1-child/);
    assert.equal(first.requeueWithBackoff, true);
    assert.equal(h.state, 'Ready');
    h.clock.advance(10_500);
    await h.run();
    assert.equal(h.state, 'Degraded');
    assert.equal(h.condition('DependenciesReachable')?.status, 'False');
    assert.equal(h.condition('Ready')?.reason, 'InfrastructureError');
    h.cluster.faults = [];
    await h.run();
    assert.equal(h.state, 'Ready');
    assert.deepEqual(h.cluster.getObject('v1', 'ConfigMap', 'w1-child', 'ns')?.data, { value: 'v2' });
  });

  it('a component never observed before is not given a condition during the grace period', async () => {
    const h = new Harness();
    h.scenario.health = [{ component: 'Model', errors: [apiError(503)] }];
    await h.run();
    assert.equal(h.condition('ModelReady'), undefined);
    assert.equal(h.state, 'Progressing');
  });
});

describe('state engine: lazily created parent conditions', () => {
  for (const [name, error, type] of [
    ['AuthValid', apiError(401), 'AuthValid'],
    ['ConfigValid', apiError(422), 'ConfigValid'],
    ['ConfigValid (missing reference)', missingUpstreamError('ReferenceNotFound', 'gone'), 'ConfigValid'],
  ] as const) {
    it(`${name}: absent until the first error, then False, then True for good`, async () => {
      const h = new Harness();
      h.scenario.health = [ready('Model')];
      await h.run();
      assert.deepEqual(h.conditionTypes(), ['ModelReady', 'Ready']);
      h.scenario.health = [{ component: 'Model', errors: [error] }];
      await h.run();
      assert.equal(h.condition(type)?.status, 'False');
      h.scenario.health = [ready('Model')];
      h.clock.advance(5_000);
      await h.run();
      assert.equal(h.condition(type)?.status, 'True');
      const since = h.condition(type)!.lastTransitionTime;
      h.clock.advance(5_000);
      await h.run();
      assert.equal(h.condition(type)?.status, 'True', 'persists');
      assert.equal(h.condition(type)?.lastTransitionTime, since, 'no new transition');
      assert.equal(h.state, 'Ready');
    });
  }
});

describe('state engine: roll-up', () => {
  const CASES = [
    { name: 'all ready', health: [ready('A'), ready('B')], state: 'Ready', reason: 'AllComponentsReady' },
    { name: 'no components', health: [], state: 'Ready', reason: 'AllComponentsReady' },
    {
      name: 'upstream not ready ⇒ Pending',
      health: [
        ready('A'),
        { component: 'Model', state: 'Progressing', reason: 'ModelNotReady', dependencyType: 'Upstream' },
      ],
      state: 'Pending',
      reason: 'Pending',
    },
    {
      name: 'downstream not ready ⇒ Progressing',
      health: [{ component: 'Pods', state: 'Progressing', reason: 'PodsStarting', dependencyType: 'Downstream' }],
      state: 'Progressing',
      reason: 'Progressing',
    },
    {
      name: 'upstream beats downstream',
      health: [
        { component: 'Pods', state: 'Progressing', reason: 'PodsStarting', dependencyType: 'Downstream' },
        { component: 'Model', state: 'Progressing', reason: 'ModelNotReady', dependencyType: 'Upstream' },
      ],
      state: 'Pending',
      reason: 'Pending',
    },
    {
      name: 'an explicit Degraded component',
      health: [ready('A'), { component: 'Cache', state: 'Degraded', reason: 'CacheLost', message: 'lost' }],
      state: 'Degraded',
      reason: 'CacheLost',
    },
    {
      name: 'NotAvailable beats Degraded',
      health: [
        { component: 'Cache', state: 'Degraded', reason: 'CacheLost' },
        { component: 'GPU', state: 'NotAvailable', reason: 'NoGPU' },
      ],
      state: 'NotAvailable',
      reason: 'NoGPU',
    },
    {
      name: 'not-applicable entries are skipped',
      health: [ready('A'), undefined, null, false],
      state: 'Ready',
      reason: 'AllComponentsReady',
    },
  ] as const;
  for (const c of CASES) {
    it(c.name, async () => {
      const h = new Harness();
      h.scenario.health = [...c.health] as never;
      await h.run();
      assert.equal(h.state, c.state);
      assert.equal(h.condition('Ready')?.reason, c.reason);
      assert.equal(h.condition('Ready')?.status, c.state === 'Ready' ? 'True' : 'False');
    });
  }

  it('component condition status follows DESIGN: Unknown while progressing/pending, False for error states', async () => {
    const h = new Harness();
    h.scenario.health = [
      { component: 'P', state: 'Progressing', reason: 'Working' },
      { component: 'Q', state: 'Pending', reason: 'Queued' },
      { component: 'S', state: 'Starting', reason: 'Booting' },
      { component: 'D', state: 'Degraded', reason: 'Slow' },
      { component: 'F', state: 'Failed', reason: 'Broken', message: 'disk broke' },
      { component: 'N', state: 'NotAvailable', reason: 'NoGPU' },
      ready('R'),
    ];
    await h.run();
    const got = Object.fromEntries(
      ['P', 'Q', 'S', 'D', 'F', 'N', 'R'].map((c) => [c, h.condition(`${c}Ready`)?.status]),
    );
    assert.deepEqual(got, { P: 'Unknown', Q: 'Unknown', S: 'Unknown', D: 'False', F: 'False', N: 'False', R: 'True' });
    assert.equal(h.condition('Ready')?.reason, 'Broken');
    assert.equal(h.condition('Ready')?.message, 'Component F is not ready: disk broke');
  });

  it('NotAvailable (what the cluster offers, not a fault) is said once at info; Failed is an error every reconcile', async () => {
    const h = new Harness();
    h.scenario.health = [{ component: 'GPU', state: 'NotAvailable', reason: 'GPUNotAvailable', message: 'no MI355X' }];
    await h.run();
    const levels = () => h.cluster.logs.filter((l) => l.fields?.reason === 'GPUNotAvailable').map((l) => l.level);
    assert.deepEqual(levels().sort(), ['info', 'info'], 'GPUReady and Ready, each once, at info');
    assert.equal(h.condition('Ready')?.reason, 'GPUNotAvailable');
    assert.deepEqual([...new Set(h.cluster.events.map((e) => e.type))], ['Normal']);
    await h.run();
    assert.deepEqual(levels(), [], 'no repeat while nothing changed');
    h.scenario.health = [{ component: 'GPU', state: 'Failed', reason: 'Broken', message: 'driver crashed' }];
    await h.run();
    await h.run();
    assert.ok(h.cluster.logs.some((l) => l.level === 'error' && l.fields?.reason === 'Broken'));
  });

  it('a component no longer reported loses its condition', async () => {
    const h = new Harness();
    h.scenario.health = [ready('A'), ready('B')];
    await h.run();
    assert.deepEqual(h.conditionTypes(), ['AReady', 'BReady', 'Ready']);
    h.scenario.health = [ready('A')];
    await h.run();
    assert.deepEqual(h.conditionTypes(), ['AReady', 'Ready']);
  });

  it('a planner that throws is an InvalidSpec (ConfigValid=False/InvalidSpec, Failed, nothing applied)', async () => {
    const h = new Harness();
    h.scenario.planError = new Error('spec.replicas must be positive');
    const outcome = await h.run();
    assert.equal(h.childApplied, false);
    assert.equal(outcome.decision!.shouldApply, false);
    assert.equal(h.condition('ConfigValid')?.reason, 'InvalidSpec');
    assert.match(h.condition('ConfigValid')!.message, /planning failed: spec.replicas must be positive/);
    assert.equal(h.state, 'Failed');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  asError,
  asInfo,
  asWarning,
  type ComponentHealth,
  ConditionManager,
  conditionTime,
  ManualClock,
  quietWhenNew,
  StatusHelper,
  sanitizeReason,
  shouldReport,
  silent,
  withEventReason,
} from '../../src/engine/index.ts';
import { apiError } from './helpers/fake-cluster.ts';
import { Harness } from './helpers/scenario.ts';

const ready = (component: string, message = `${component} ok`): ComponentHealth => ({
  component,
  state: 'Ready',
  reason: `${component}Found`,
  message,
});
const loading = (component: string): ComponentHealth => ({
  component,
  state: 'Progressing',
  reason: `${component}Loading`,
  message: `${component} is loading`,
  dependencyType: 'Upstream',
});

describe('ConditionManager', () => {
  it('lastTransitionTime moves on status or reason changes only, not on message changes', () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1, 12));
    const cm1 = new ConditionManager([], { now: () => clock.now() });
    cm1.markTrue('ModelReady', 'Found', 'model ok');
    const t0 = cm1.get('ModelReady')!.lastTransitionTime;
    assert.equal(t0, '2025-01-01T12:00:00Z');

    const cases = [
      { status: 'True', reason: 'Found', message: 'model still ok', transition: false },
      { status: 'True', reason: 'Resolved', message: 'model ok', transition: true },
      { status: 'False', reason: 'Found', message: 'model ok', transition: true },
      { status: 'Unknown', reason: 'Found', message: 'model ok', transition: true },
    ] as const;
    for (const c of cases) {
      clock.advance(61_000);
      const cm = new ConditionManager(cm1.list(), { now: () => clock.now() });
      cm.set('ModelReady', c.status, c.reason, c.message);
      const got = cm.get('ModelReady')!;
      assert.equal(got.message, c.message);
      assert.equal(got.lastTransitionTime === t0, !c.transition, `${c.status}/${c.reason}: lastTransitionTime`);
      assert.equal(cm.observations()[0]!.transitioned, c.transition);
    }
  });

  it('a condition removed and set again in one reconcile keeps its transition time', () => {
    const clock = new ManualClock();
    const cm = new ConditionManager(
      [{ type: 'XReady', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2020-01-01T00:00:00Z' }],
      { now: () => clock.now() },
    );
    cm.delete('XReady');
    cm.markTrue('XReady', 'Ok', 'again');
    assert.equal(cm.get('XReady')!.lastTransitionTime, '2020-01-01T00:00:00Z');
    assert.equal(cm.observations()[0]!.transitioned, false);
  });

  it('records observedGeneration when given a generation', () => {
    const cm = new ConditionManager([], { generation: 7 });
    cm.markTrue('Ready', 'Ok', '');
    assert.equal(cm.get('Ready')!.observedGeneration, 7);
  });

  it('reports: silent never, info/warning on transitions, error on every reconcile', () => {
    const existing = [
      { type: 'A', status: 'True' as const, reason: 'Ok', message: '', lastTransitionTime: conditionTime(0) },
    ];
    const table = [
      { opt: silent(), transition: true, report: false },
      { opt: asInfo(), transition: true, report: true },
      { opt: asInfo(), transition: false, report: false },
      { opt: asWarning(), transition: true, report: true },
      { opt: asWarning(), transition: false, report: false },
      { opt: asError(), transition: true, report: true },
      { opt: asError(), transition: false, report: true },
    ];
    for (const t of table) {
      const cm = new ConditionManager(existing);
      cm.set('A', t.transition ? 'False' : 'True', 'Ok', 'msg', t.opt);
      assert.equal(shouldReport(cm.observations()[0]!), t.report, JSON.stringify(t));
    }
    const cm = new ConditionManager(existing);
    cm.markTrue('A', 'Ok', 'no options given');
    assert.deepEqual(cm.observations()[0]!.config, { level: 'info', recurring: false }, 'default is asInfo');
  });

  it('sanitises reasons that the API server would reject', () => {
    assert.equal(sanitizeReason('PodsReady'), 'PodsReady');
    assert.equal(sanitizeReason('not allowed by listeners'), 'notAllowedByListeners');
    assert.equal(sanitizeReason('404-not-found'), 'NotFound');
    assert.equal(sanitizeReason(''), 'Unknown');
  });
});

describe('events and logs from a reconcile', () => {
  it('a transition gives one event; the same state again gives none; a message-only change gives none', async () => {
    const h = new Harness();
    h.scenario.health = [loading('Model')];
    await h.run();
    h.scenario.health = [ready('Model')];
    await h.run();
    assert.deepEqual(
      h.cluster.events.map((e) => `${e.type}/${e.reason}`),
      ['Normal/ModelFound', 'Normal/AllComponentsReady'],
    );
    await h.run();
    assert.deepEqual(h.cluster.events, []);
    assert.equal(h.cluster.count('applyStatus'), 0, 'nothing changed: no status write');

    const ltt = h.condition('ModelReady')!.lastTransitionTime;
    h.clock.advance(120_000);
    h.scenario.health = [ready('Model', 'model ok, 3 replicas')];
    await h.run();
    assert.deepEqual(h.cluster.events, [], 'message-only change is not a transition');
    assert.equal(h.cluster.count('applyStatus'), 1, 'but the new message is written');
    assert.equal(h.condition('ModelReady')!.message, 'model ok, 3 replicas');
    assert.equal(h.condition('ModelReady')!.lastTransitionTime, ltt);
  });

  it('an object ready at its first status write gets no events: its status says it (a component may ask to be announced)', async () => {
    const h = new Harness();
    h.scenario.health = [ready('Model'), ready('Pods')];
    await h.run();
    assert.equal(h.condition('Ready')?.status, 'True');
    assert.equal(h.cluster.events.length, 0);
    assert.ok(
      h.cluster.logs.every((l) => l.level !== 'info' || !/condition (ModelReady|PodsReady|Ready)=True/.test(l.msg)),
      'nor info logs',
    );
    const announced = new Harness();
    announced.scenario.health = [
      ready('Model'),
      { ...ready('Config'), reason: 'DefaultConfigNotFound', announce: true },
    ];
    await announced.run();
    assert.deepEqual(
      announced.cluster.events.map((e) => `${e.type}/${e.reason}`),
      ['Normal/DefaultConfigNotFound'],
    );
  });

  it('a component ready from the start is quiet; one that becomes ready later, or asks to be announced, gets its event', async () => {
    const h = new Harness();
    h.scenario.health = [
      ready('Model'),
      { ...ready('Config'), reason: 'DefaultConfigNotFound', announce: true },
      { component: 'Pods', state: 'Progressing', reason: 'PodsStarting', dependencyType: 'Downstream' },
    ];
    await h.run();
    assert.deepEqual(h.cluster.events.map((e) => `${e.type}/${e.reason}`).sort(), [
      'Normal/DefaultConfigNotFound',
      'Normal/Progressing',
    ]);
    assert.equal(h.condition('ModelReady')?.status, 'True', 'the condition is there all the same');
    h.scenario.health = [
      ready('Model'),
      { ...ready('Config'), reason: 'DefaultConfigNotFound', announce: true },
      ready('Pods'),
    ];
    await h.run();
    assert.deepEqual(h.cluster.events.map((e) => `${e.type}/${e.reason}`).sort(), [
      'Normal/AllComponentsReady',
      'Normal/PodsFound',
    ]);
  });

  it('quietWhenNew: no report when the condition first appears, a report when an existing one changes', () => {
    const fresh = new ConditionManager([]);
    fresh.markTrue('A', 'Ok', 'msg', asInfo(), quietWhenNew());
    assert.equal(shouldReport(fresh.observations()[0]!), false);
    const existing = new ConditionManager([
      { type: 'A', status: 'False', reason: 'Broken', message: '', lastTransitionTime: conditionTime(0) },
    ]);
    existing.markTrue('A', 'Ok', 'msg', asInfo(), quietWhenNew());
    assert.equal(shouldReport(existing.observations()[0]!), true);
  });

  it('error states emit a Warning event and an error log on every reconcile', async () => {
    const h = new Harness();
    h.scenario.health = [{ component: 'Model', errors: [apiError(403)] }];
    for (let i = 0; i < 3; i++) {
      await h.run();
      const warnings = h.cluster.events.filter((e) => e.type === 'Warning').map((e) => e.reason);
      assert.deepEqual(
        warnings.sort(),
        ['AuthError', 'AuthError', 'AuthError'],
        `reconcile ${i}: ModelReady, AuthValid, Ready`,
      );
      assert.equal(h.cluster.logs.filter((l) => l.level === 'error').length, 3);
    }
  });

  it('recovery is an info transition once, then quiet', async () => {
    const h = new Harness();
    h.scenario.health = [{ component: 'Model', errors: [apiError(403)] }];
    await h.run();
    h.scenario.health = [ready('Model')];
    await h.run();
    assert.deepEqual(h.cluster.events.map((e) => `${e.type}/${e.reason}`).sort(), [
      'Normal/AllComponentsReady',
      'Normal/AuthenticationValid',
      'Normal/ModelFound',
    ]);
    await h.run();
    assert.deepEqual(h.cluster.events, []);
  });

  it('no events when the status write lost a conflict (the next reconcile reports the transition)', async () => {
    const h = new Harness();
    h.scenario.health = [loading('Model')];
    await h.run();
    h.scenario.health = [ready('Model')];
    const stale = h.object;
    h.cluster.put(h.object); // someone else wrote: resourceVersion moved on
    h.cluster.clearRecords();
    const outcome = await h.pipeline.run(stale, h.cluster.deps());
    assert.equal(outcome.statusConflict, true);
    assert.equal(outcome.requeueWithBackoff, false);
    assert.equal(h.cluster.events.length, 0);
    await h.run();
    assert.deepEqual(
      h.cluster.events.map((e) => e.reason),
      ['ModelFound', 'AllComponentsReady'],
    );
  });

  it('a decorator can mark a condition silent or with its own event reason', async () => {
    const h = new Harness();
    h.scenario.health = [ready('Model')];
    h.scenario.decorate = (_s, cm) => {
      cm.markTrue('Discovered', 'DiscoveryComplete', 'found 3 profiles', silent());
      cm.markFalse('Cached', 'CacheMiss', 'not cached', asWarning(), withEventReason('CacheWarning'));
    };
    await h.run();
    assert.ok(!h.cluster.events.some((e) => e.reason === 'DiscoveryComplete'));
    assert.ok(h.cluster.events.some((e) => e.type === 'Warning' && e.reason === 'CacheWarning'));
    assert.equal(h.condition('Discovered')?.status, 'True');
  });
});

describe('the three approaches', () => {
  it('1. automatic: component conditions, Ready and status.status from health alone', async () => {
    const h = new Harness();
    h.scenario.health = [
      ready('Model'),
      { component: 'Template', state: 'Progressing', reason: 'TemplateNotReady', dependencyType: 'Upstream' },
    ];
    await h.run();
    assert.deepEqual(h.conditionTypes(), ['ModelReady', 'Ready', 'TemplateReady']);
    assert.equal(h.state, 'Pending');
  });

  it('2. automatic + decorateStatus: custom fields and conditions on top; a decorator *Ready condition counts in the roll-up', async () => {
    const h = new Harness();
    h.scenario.health = [ready('Model')];
    h.scenario.decorate = (status, cm) => {
      status.resolvedTemplate = { name: 'tpl-a' };
      cm.markFalse('CacheReady', 'CacheCreating', 'creating cache');
    };
    await h.run();
    assert.deepEqual(h.object.status?.resolvedTemplate, { name: 'tpl-a' });
    assert.equal(h.condition('CacheReady')?.status, 'False');
    assert.equal(h.state, 'Progressing', 'the decorator condition holds Ready back');
    h.scenario.decorate = (status, cm) => {
      status.resolvedTemplate = { name: 'tpl-a' };
      cm.markTrue('CacheReady', 'CacheReady', 'cache ready');
    };
    await h.run();
    assert.equal(h.state, 'Ready');
  });

  it('2b. a field the decorator stops setting is removed (it is ours, and server-side apply drops it)', async () => {
    const h = new Harness();
    h.scenario.health = [ready('Model')];
    h.scenario.decorate = (status) => {
      status.endpoint = 'http://x';
    };
    await h.run();
    assert.equal(h.object.status?.endpoint, 'http://x');
    h.scenario.decorate = (status) => {
      delete status.endpoint;
    };
    await h.run();
    assert.equal(h.object.status?.endpoint, undefined);
  });

  it('3. manual setStatus: the controller sets everything; health only drives the decision', async () => {
    const h = new Harness();
    h.scenario.health = [ready('Model')];
    h.scenario.manual = (status, cm) => {
      new StatusHelper(status, cm).ready('AllGood', 'Everything is working');
      cm.markTrue('CustomCondition', 'Reason', 'Message', asInfo());
    };
    await h.run();
    assert.deepEqual(h.conditionTypes(), ['CustomCondition', 'Ready']);
    assert.equal(h.state, 'Ready');
    assert.equal(h.condition('Ready')?.reason, 'AllGood');
    assert.ok(h.childApplied);

    h.scenario.health = [{ component: 'Model', errors: [apiError(401)] }];
    h.scenario.manual = (status, cm) => new StatusHelper(status, cm).failed('Nope', 'credentials rejected');
    const outcome = await h.run();
    assert.equal(outcome.decision!.shouldApply, false, 'an auth error still stops applies in manual mode');
    assert.equal(h.condition('AuthValid'), undefined, 'the engine does not add AuthValid in manual mode');
    assert.equal(h.state, 'Failed');
  });

  it('3b. manual mode still reports outages past the grace period on DependenciesReachable', async () => {
    const h = new Harness();
    h.scenario.health = [{ component: 'Model', errors: [apiError(503)] }];
    h.scenario.manual = (status, cm) => new StatusHelper(status, cm).progressing('Waiting', 'waiting');
    await h.run();
    assert.equal(h.condition('DependenciesReachable'), undefined);
    h.clock.advance(10_000);
    await h.run();
    assert.equal(h.condition('DependenciesReachable')?.status, 'False');
  });

  it('status field name and state names are configurable (AIMService: Starting/Running; ModelDeployment: phase)', async () => {
    const h = new Harness({ mapState: (s) => (s === 'Ready' ? 'Running' : s === 'Progressing' ? 'Starting' : s) });
    h.scenario.health = [{ component: 'Pods', state: 'Progressing', reason: 'PodsStarting' }];
    await h.run();
    assert.equal(h.object.status?.status, 'Starting');
    h.scenario.health = [ready('Pods')];
    await h.run();
    assert.equal(h.object.status?.status, 'Running');

    const p = new Harness({ statusField: 'phase' });
    p.scenario.health = [ready('Pods')];
    await p.run();
    assert.equal(p.object.status?.phase, 'Ready');
    assert.equal(p.object.status?.status, undefined);
  });

  it('a paused object is left alone', async () => {
    for (const [value, paused] of [
      ['true', true],
      ['True', false],
      ['yes', false],
    ] as const) {
      const h = new Harness({ pauseAnnotation: 'aim.eai.amd.com/reconciliation-paused' });
      const w = h.object;
      w.metadata.annotations = { 'aim.eai.amd.com/reconciliation-paused': value };
      h.cluster.put(w);
      const outcome = await h.run();
      assert.equal(outcome.phase === 'paused', paused, value);
      assert.equal(h.cluster.requests.length === 0, paused, value);
      assert.equal(h.object.status === undefined, paused, value);
    }
  });
});

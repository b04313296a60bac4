// After the apply: status is computed from what the writes left behind, and a status that only says "the
// children just written are not ready yet" waits out the settle window (src/engine/settle.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  type DomainReconciler,
  type FetchResult,
  fetch,
  ManualClock,
  Pipeline,
  PlanResult,
  SettleWindow,
  toResult,
} from '../../src/engine/index.ts';
import { FakeCluster } from './helpers/fake-cluster.ts';
import { type Widget, widget } from './helpers/scenario.ts';

const ConfigMaps = kindRef<KubeObject & { data?: Record<string, string> }>('v1', 'ConfigMap');

interface Seen {
  child: FetchResult<KubeObject & { data?: Record<string, string> }>;
  /** what the upstream dependency says, for the tests that need one */
  upstream?: 'ready' | 'waiting' | 'broken';
}

/** plans one child ConfigMap; it counts as ready when it carries data.ready=yes (as the "upstream" would set it) */
function reconciler(
  opts: { childData?: Record<string, string>; upstream?: Seen['upstream'] } = {},
): DomainReconciler<Widget, Seen> {
  return {
    fetchRemoteState: async ({ reader, object }) => ({
      child: await fetch(reader, ConfigMaps, `${object.metadata.name}-child`, object.metadata.namespace),
      ...(opts.upstream ? { upstream: opts.upstream } : {}),
    }),
    planResources: ({ object }) =>
      new PlanResult().apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${object.metadata.name}-child`, namespace: object.metadata.namespace },
        data: opts.childData ?? { value: 'x' },
      }),
    getComponentHealth: (obs) => [
      obs.child.toDownstreamComponentHealth('Child', (cm) =>
        cm.data?.ready === 'yes'
          ? { state: 'Ready', reason: 'ChildReady' }
          : { state: 'Progressing', reason: 'ChildStarting' },
      ),
      obs.upstream === 'waiting' && {
        component: 'Model',
        state: 'Progressing',
        reason: 'ModelLoading',
        dependencyType: 'Upstream',
      },
      obs.upstream === 'broken' && { component: 'Model', state: 'Failed', reason: 'ModelBroken' },
    ],
  };
}

function setup(r: DomainReconciler<Widget, Seen>, settleWindowMs?: number) {
  const cluster = new FakeCluster();
  const clock = new ManualClock();
  const pipeline = new Pipeline<Widget, Seen>({
    name: 'settle',
    reconciler: r,
    clock,
    ...(settleWindowMs !== undefined ? { settleWindowMs } : {}),
  });
  cluster.put(widget());
  const current = () => cluster.getObject<Widget>('test.modelplane.io/v1', 'Widget', 'w1', 'ns')!;
  const run = () => pipeline.run(current(), cluster.deps());
  return { cluster, clock, current, run };
}

describe('status after the apply', () => {
  it('a child created ready is reported ready by the reconcile that created it', async () => {
    const t = setup(reconciler({ childData: { ready: 'yes' } }));
    const out = await t.run();
    assert.equal(out.apply?.applied, 1);
    assert.equal(out.state, 'Ready', 'the fetch after the apply found the child as written');
    assert.equal(t.current().status?.conditions?.find((c) => c.type === 'ChildReady')?.reason, 'ChildReady');
  });

  it('without writes the first observation stands (one fetch)', async () => {
    const t = setup(reconciler({ childData: { ready: 'yes' } }));
    await t.run();
    let fetches = 0;
    const counting = reconciler({ childData: { ready: 'yes' } });
    const fetchOnce = counting.fetchRemoteState;
    counting.fetchRemoteState = async (ctx) => {
      fetches++;
      return fetchOnce(ctx);
    };
    const again = new Pipeline<Widget, Seen>({ name: 'settle', reconciler: counting, clock: t.clock });
    const out = await again.run(t.current(), t.cluster.deps());
    assert.equal(out.apply?.applied, 0);
    assert.equal(fetches, 1);
  });
});

describe('a status write answered 404', () => {
  /** as a planner that watches a deadline does: it asks to look again later */
  const lookingAgain = (r: DomainReconciler<Widget, Seen>) => {
    const plan = r.planResources;
    r.planResources = (ctx, obs) => plan(ctx, obs).requeueAfter(5000);
    return r;
  };

  it('ends the run with nothing requeued, not even the look again its plan asked for', async () => {
    const t = setup(lookingAgain(reconciler({ upstream: 'waiting' })));
    const first = await t.run();
    assert.equal(first.statusWritten, true);
    assert.deepEqual(toResult(first), { requeueAfter: 5000 });
    // deleted while a stale cache still holds it; the upstream broke meanwhile, so the status would change
    const stale = t.current();
    t.cluster.remove('test.modelplane.io/v1', 'Widget', 'w1', 'ns');
    const before = t.cluster.count('applyStatus');
    const broken = lookingAgain(reconciler({ upstream: 'broken' }));
    const out = await new Pipeline<Widget, Seen>({ name: 'settle', reconciler: broken, clock: t.clock }).run(
      stale,
      t.cluster.deps(),
    );
    assert.equal(t.cluster.count('applyStatus'), before + 1, 'the status write was tried');
    assert.equal(out.objectGone, true);
    assert.deepEqual(toResult(out), {}, 'a run that met the 404 asked to run again');
  });
});

describe('settle window in the pipeline', () => {
  it('holds a status that only waits for the children just written, then writes what it then sees', async () => {
    const t = setup(reconciler(), 2000);
    const first = await t.run();
    assert.equal(first.statusHeld, true);
    assert.equal(first.requeueAfterMs, 2000);
    assert.equal(t.cluster.count('applyStatus'), 0);
    assert.equal(t.cluster.events.length, 0);
    t.clock.advance(2000);
    const second = await t.run();
    assert.equal(second.statusHeld, false);
    assert.equal(t.current().status?.status, 'Progressing', 'the window ended: the not-ready status is written');
  });

  it('never holds a status that waits for an upstream dependency, reports an error, or without the option', async () => {
    for (const [what, r, window] of [
      ['upstream not ready', reconciler({ upstream: 'waiting' }), 2000],
      ['a failed component', reconciler({ upstream: 'broken' }), 2000],
      ['no settle window', reconciler(), undefined],
    ] as const) {
      const t = setup(r, window);
      const out = await t.run();
      assert.equal(out.statusHeld, false, what);
      assert.equal(t.cluster.count('applyStatus'), 1, what);
    }
  });
});

describe('SettleWindow', () => {
  it('opens only when children were written, stays open for its generation until it ends, reopens only after a write', () => {
    const clock = new ManualClock();
    const w = new SettleWindow(clock, 1000);
    assert.equal(w.hold('a', 1, false), undefined, 'nothing written: no window');
    assert.equal(w.hold('a', 1, true), 1000);
    clock.advance(400);
    assert.equal(w.hold('a', 1, false), 600, 'open for what is left of it');
    clock.advance(600);
    assert.equal(w.hold('a', 1, true), undefined, 'ended: not reopened by more writes');
    assert.equal(w.hold('a', 2, true), 1000, 'a new generation gets its own window');
    w.release('a');
    assert.equal(w.size, 0);
    assert.equal(w.hold('a', 2, true), 1000, 'after a status write the next change may wait again');
  });
});

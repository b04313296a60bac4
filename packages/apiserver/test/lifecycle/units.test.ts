// Unit tests for the pieces the lifecycle controllers are built from: the work queue's guarantees,
// the owner index, and the namespace conditions' texts and transition times.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ContentTotals, namespaceConditions } from '../../src/controller-manager/namespace-conditions.ts';
import { objectId, parseObjectId } from '../../src/controller-manager/owner-index.ts';
import { WorkQueue } from '../../src/controller-manager/queue.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('WorkQueue', () => {
  it('processes a key queued many times once', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => void seen.push(k));
    for (let i = 0; i < 5; i++) q.add('a');
    q.add('b');
    await q.idle();
    assert.deepEqual(seen, ['a', 'b']);
  });

  it('never runs one key twice at once, and reruns a key added while it runs', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(async () => {
      running++;
      runs++;
      maxRunning = Math.max(maxRunning, running);
      if (runs === 1) await gate;
      running--;
    });
    q.add('k');
    // wait for the first run to start (however long a loaded machine takes), then add while it runs
    while (runs === 0) await tick();
    q.add('k');
    q.add('k');
    await tick();
    assert.equal(runs, 1, 'the second add waits for the first run');
    release();
    await q.idle();
    assert.equal(runs, 2, 'added while running: exactly one more run');
    assert.equal(maxRunning, 1);
  });

  it('retries a failing key with backoff and reports each failure with its attempt', async () => {
    const attempts: number[] = [];
    let calls = 0;
    const q = new WorkQueue(
      async () => {
        calls++;
        if (calls < 3) throw new Error('not yet');
      },
      { baseDelayMs: 1, onError: (_k, _e, attempt) => attempts.push(attempt) },
    );
    q.add('k');
    for (let i = 0; i < 100 && calls < 3; i++) await tick();
    await q.idle();
    assert.equal(calls, 3);
    assert.deepEqual(attempts, [1, 2]);
    assert.equal(q.pendingRetries(), 0);
  });

  it('stops: queued work is dropped and idle() resolves', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => void seen.push(k));
    q.add('a');
    q.stop();
    await q.idle();
    await tick();
    q.add('b');
    await tick();
    assert.deepEqual(seen, []);
  });
});

describe('garbage collector object ids', () => {
  it('object ids round-trip, cluster-scoped ones too', () => {
    assert.deepEqual(parseObjectId(objectId('apps/deployments', 'ns', 'web')), {
      storageKey: 'apps/deployments',
      namespace: 'ns',
      name: 'web',
    });
    assert.deepEqual(parseObjectId(objectId('/namespaces', undefined, 'x')), {
      storageKey: '/namespaces',
      namespace: undefined,
      name: 'x',
    });
  });
});

describe('namespace conditions', () => {
  const none: ContentTotals = { remaining: new Map(), finalizers: new Map(), failures: [] };
  const held: ContentTotals = {
    remaining: new Map([
      ['configmaps.', 2],
      ['widgets.example.com', 1],
    ]),
    finalizers: new Map([
      ['b/f', 1],
      ['a/f', 2],
    ]),
    failures: ['z failed', 'a failed'],
  };

  it("reports the five conditions, sorted lists and kube's texts", () => {
    const c = namespaceConditions(undefined, held, 'T1');
    assert.deepEqual(
      c.map((x) => [x.type, x.status, x.reason]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
        ['NamespaceDeletionContentFailure', 'True', 'ContentDeletionFailed'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
      ],
    );
    assert.equal(c[2]!.message, 'Failed to delete all resource types, 2 remaining: a failed, z failed');
    assert.equal(
      c[3]!.message,
      'Some resources are remaining: configmaps. has 2 resource instances, widgets.example.com has 1 resource instances',
    );
    assert.equal(
      c[4]!.message,
      'Some content in the namespace has finalizers remaining: a/f in 2 resource instances, b/f in 1 resource instances',
    );
  });

  it('moves lastTransitionTime only when a status changes, and keeps foreign conditions', () => {
    const first = namespaceConditions(
      [{ type: 'Other', status: 'True', reason: 'R', message: 'm', lastTransitionTime: 'T0' }],
      held,
      'T1',
    );
    const fewer: ContentTotals = { ...held, remaining: new Map([['configmaps.', 1]]) };
    const second = namespaceConditions(first, fewer, 'T2');
    const remaining = second.find((c) => c.type === 'NamespaceContentRemaining')!;
    assert.equal(remaining.lastTransitionTime, 'T1', 'message changed, status did not');
    assert.equal(remaining.message, 'Some resources are remaining: configmaps. has 1 resource instances');
    const third = namespaceConditions(second, none, 'T3');
    assert.equal(third.find((c) => c.type === 'NamespaceContentRemaining')!.lastTransitionTime, 'T3');
    assert.equal(
      third.find((c) => c.type === 'NamespaceContentRemaining')!.message,
      'All content successfully removed',
    );
    assert.deepEqual(third[0], { type: 'Other', status: 'True', reason: 'R', message: 'm', lastTransitionTime: 'T0' });
  });
});

// finalizer(): one function adds the finalizer before apply, runs cleanup on deletion and removes the
// finalizer after it; in a terminating (or vanished) namespace cleanup is best-effort and never holds the
// finalizer. A table over a recording client that also reads the namespace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/client/errors.ts';
import { type FinalizerEvent, finalizer } from '../src/finalizer.ts';
import { type KubeObject, kindRef } from '../src/meta/types.ts';

const Widgets = kindRef<KubeObject>('example.com/v1', 'Widget');
const FIN = 'example.com/cleanup';
const log = { info() {}, error() {}, debug() {}, warn() {} };

interface Case {
  name: string;
  object: KubeObject;
  namespace?: 'active' | 'terminating' | 'gone';
  cleanup?: 'done' | 'wait' | 'throw';
  patch?: 'ok' | 'conflict';
  addWhen?: boolean;
  want: {
    events: string[];
    /** the finalizer lists written, in order */
    patches: string[][];
    result?: object;
    throws?: RegExp;
  };
}

const obj = (finalizers?: string[], deleting = false, namespace: string | null = 'ns'): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'w',
    ...(namespace ? { namespace } : {}),
    resourceVersion: '7',
    ...(finalizers ? { finalizers } : {}),
    ...(deleting ? { deletionTimestamp: '2026-11-28T03:00:00Z' } : {}),
  },
});

const cases: Case[] = [
  {
    name: 'a new object gets the finalizer, then apply sees the patched object',
    object: obj(),
    want: { events: ['apply:example.com/cleanup'], patches: [[FIN]], result: { requeueAfter: 5 } },
  },
  {
    name: "the finalizer is added beside others' and not twice",
    object: obj(['other']),
    want: { events: ['apply:other,example.com/cleanup'], patches: [['other', FIN]], result: { requeueAfter: 5 } },
  },
  {
    name: 'already there: just apply',
    object: obj([FIN]),
    want: { events: ['apply:example.com/cleanup'], patches: [], result: { requeueAfter: 5 } },
  },
  {
    name: 'addWhen false (a paused object): no finalizer, apply all the same',
    object: obj(),
    addWhen: false,
    want: { events: ['apply:'], patches: [], result: { requeueAfter: 5 } },
  },
  {
    name: 'adding conflicts: requeue, no apply on the stale object',
    object: obj(),
    patch: 'conflict',
    want: { events: [], patches: [[FIN]], result: { requeue: true } },
  },
  {
    name: 'deleting without our finalizer: nothing to do',
    object: obj(['other'], true),
    want: { events: [], patches: [], result: {} },
  },
  {
    name: 'deleting: cleanup, then the finalizer goes (others stay)',
    object: obj(['other', FIN], true),
    want: { events: ['cleanup:false'], patches: [['other']], result: {} },
  },
  {
    name: 'cleanup asks to wait: the finalizer stays, the wait is returned',
    object: obj([FIN], true),
    cleanup: 'wait',
    want: { events: ['cleanup:false'], patches: [], result: { requeueAfter: 1000 } },
  },
  {
    name: 'cleanup fails: the error propagates (retried), the finalizer stays',
    object: obj([FIN], true),
    cleanup: 'throw',
    want: { events: ['cleanup:false'], patches: [], throws: /children unreachable/ },
  },
  {
    name: 'terminating namespace: a failing cleanup does not hold the finalizer',
    object: obj([FIN], true),
    namespace: 'terminating',
    cleanup: 'throw',
    want: { events: ['cleanup:true'], patches: [[]], result: {} },
  },
  {
    name: 'terminating namespace: a cleanup that wants to wait does not hold it either',
    object: obj([FIN], true),
    namespace: 'terminating',
    cleanup: 'wait',
    want: { events: ['cleanup:true'], patches: [[]], result: {} },
  },
  {
    name: 'namespace already gone counts as terminating',
    object: obj([FIN], true),
    namespace: 'gone',
    cleanup: 'throw',
    want: { events: ['cleanup:true'], patches: [[]], result: {} },
  },
  {
    name: 'a cluster-scoped object has no namespace to wait for',
    object: obj([FIN], true, null),
    namespace: 'gone',
    want: { events: ['cleanup:false'], patches: [[]], result: {} },
  },
  {
    name: 'removing conflicts: requeue',
    object: obj([FIN], true),
    patch: 'conflict',
    want: { events: ['cleanup:false'], patches: [[]], result: { requeue: true } },
  },
];

describe('finalizer()', () => {
  for (const c of cases)
    it(c.name, async () => {
      const patches: string[][] = [];
      const events: string[] = [];
      const ctx = {
        log,
        client: {
          async patch(_k: unknown, _n: string, _ns: string | undefined, body: any, type: string) {
            assert.equal(type, 'merge');
            assert.equal(body.metadata.resourceVersion, '7', 'an optimistic lock on the resourceVersion');
            patches.push(body.metadata.finalizers);
            if (c.patch === 'conflict') throw new ApiError({ code: 409, reason: 'Conflict', message: 'changed' });
            return { ...c.object, metadata: { ...c.object.metadata, finalizers: body.metadata.finalizers } };
          },
          async getOrUndefined(kind: { kind: string }, name: string) {
            assert.equal(kind.kind, 'Namespace');
            assert.equal(name, 'ns');
            if (c.namespace === 'gone') return undefined;
            return {
              metadata: {
                name,
                ...(c.namespace === 'terminating' ? { deletionTimestamp: '2026-11-28T03:00:00Z' } : {}),
              },
            };
          },
        },
      };
      const reconcile = async (ev: FinalizerEvent<KubeObject>) => {
        if (ev.type === 'apply') {
          events.push(`apply:${(ev.object.metadata.finalizers ?? []).join(',')}`);
          return { requeueAfter: 5 };
        }
        events.push(`cleanup:${ev.namespaceTerminating}`);
        if (c.cleanup === 'throw') throw new Error('children unreachable');
        return c.cleanup === 'wait' ? { requeueAfter: 1000 } : {};
      };
      const run = finalizer(ctx as never, Widgets, FIN, c.object, reconcile, {
        ...(c.addWhen === false ? { addWhen: () => false } : {}),
      });
      if (c.want.throws) await assert.rejects(run, c.want.throws);
      else assert.deepEqual(await run, c.want.result);
      assert.deepEqual(events, c.want.events);
      assert.deepEqual(patches, c.want.patches);
    });
});

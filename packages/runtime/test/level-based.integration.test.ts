// levelBased controllers (packages/runtime/src/controller/controller.ts, own-writes.ts): the echo of their own creates does not
// reconcile them again, whether it arrives during the reconcile that wrote or after it, but still reaches
// the other keys the object maps to; anyone else's
// change, and the answer to an update, still do; a successful reconcile cancels a requeueAfter still
// pending for its key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigMaps } from '../src/client/kinds.ts';
import { OwnWrites } from '../src/client/own-writes.ts';
import { ControllerBuilder } from '../src/controller/builder.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { controllerBed, Widgets, widget } from './helpers/controller-bed.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

const settle = () => new Promise((r) => setTimeout(r, 150));

describe('levelBased controllers', () => {
  const t = controllerBed();

  const builder = (name: string) =>
    new ControllerBuilder(name, { cache: t.cache, client: t.client, metrics: new RuntimeMetrics(), logger: t.quiet });

  /** a controller that creates one ConfigMap per Widget, owned by it, and counts its reconciles */
  function childMaker(name: string, levelBased: boolean, pauseMs = 0) {
    const calls: string[] = [];
    const c = builder(name)
      .for(Widgets)
      .owns(ConfigMaps)
      .withOptions({ levelBased })
      .complete(async (req, ctx) => {
        calls.push(req.name);
        const w = await ctx.cache.get(Widgets, req.name, req.namespace);
        if (!w || (await ctx.cache.get(ConfigMaps, `${req.name}-cm`, req.namespace))) return;
        const owner = {
          apiVersion: w.apiVersion,
          kind: w.kind,
          name: req.name,
          uid: w.metadata.uid!,
          controller: true,
        };
        await ctx.client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${req.name}-cm`, namespace: req.namespace, ownerReferences: [owner] },
          data: { a: '1' },
        });
        // the echo arrives while this reconcile still runs: it is held and judged at the end
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      });
    return { c, calls };
  }

  it('the echo of its own create does not reconcile the owner again; without levelBased it does', async () => {
    t.stub.put(widget('a'));
    const level = childMaker('level', true, 50);
    await level.c.start();
    await waitFor(
      () => level.calls.length === 1 && t.stub.getObject('v1', 'ConfigMap', 'a-cm', 'ns') !== undefined,
      'child created',
    );
    await settle();
    assert.deepEqual(level.calls, ['a'], 'one reconcile: the child event was our own write');

    // someone else edits the child: that is news
    const cm = t.stub.getObject('v1', 'ConfigMap', 'a-cm', 'ns')!;
    t.stub.put({ ...cm, data: { a: '2' } });
    await waitFor(() => level.calls.length >= 2, 'a foreign change reconciles');
    await level.c.stop();

    t.stub.remove('v1', 'ConfigMap', 'a-cm', 'ns');
    const plain = childMaker('plain', false, 50);
    await plain.c.start();
    await waitFor(() => plain.calls.length >= 2, 'the echo reconciles a controller that is not levelBased');
    await plain.c.stop();
  });

  it('an echo that arrives after the reconcile ended is recognised too', async () => {
    t.stub.put(widget('late'));
    const level = childMaker('late', true);
    await level.c.start();
    await waitFor(() => t.stub.getObject('v1', 'ConfigMap', 'late-cm', 'ns') !== undefined, 'child created');
    await settle();
    await level.c.stop();
    assert.deepEqual(level.calls, ['late']);
  });

  it("only a create counts as an echo: the answer to an update may carry someone else's change, so it reconciles", async () => {
    const w = t.stub.put(widget('upd'));
    const owner = { apiVersion: w.apiVersion, kind: w.kind, name: 'upd', uid: w.metadata.uid, controller: true };
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'upd-cm', namespace: 'ns', ownerReferences: [owner] },
      data: { a: '0' },
    });
    let calls = 0;
    const c = builder('updater')
      .for(Widgets)
      .owns(ConfigMaps)
      .withOptions({ levelBased: true })
      .complete(async (req, ctx) => {
        calls++;
        if (calls === 1)
          await ctx.client.apply({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `${req.name}-cm`, namespace: req.namespace },
            data: { a: '1' },
          });
      });
    await c.start();
    await waitFor(() => calls >= 2, "the update's echo reconciles");
    await c.stop();
  });

  it('the echo of its own create is skipped only for the key that wrote: another key the child maps to is told', async () => {
    t.stub.put(widget('peer'));
    const calls: string[] = [];
    const c = builder('peers')
      .for(Widgets)
      // a child concerns its creator and the Widget its label names (a peer, as a shared child or a claimant is)
      .watches(ConfigMaps, (cm) => [`ns/${cm.metadata.labels?.creator}`, `ns/${cm.metadata.labels?.peer}`])
      .withOptions({ levelBased: true, concurrency: 2 })
      .complete(async (req, ctx) => {
        calls.push(req.name);
        if (req.name !== 'creator' || (await ctx.cache.get(ConfigMaps, 'shared', req.namespace))) return;
        await ctx.client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'shared', namespace: req.namespace, labels: { creator: 'creator', peer: 'peer' } },
          data: { a: '1' },
        });
      });
    await c.start();
    await waitFor(() => calls.includes('peer'), 'the peer reconciled once');
    t.stub.put(widget('creator'));
    await waitFor(() => calls.filter((n) => n === 'peer').length === 2, 'the peer told of the child');
    await settle();
    await c.stop();
    assert.deepEqual(
      calls.filter((n) => n === 'creator'),
      ['creator'],
      "the creator's own echo reconciled it again",
    );
  });

  it('a successful reconcile cancels the requeueAfter an earlier one asked for', async () => {
    t.stub.put(widget('timer'));
    let calls = 0;
    const c = builder('timer')
      .for(Widgets)
      .withOptions({ levelBased: true })
      .complete(async () => {
        calls++;
        return calls === 1 ? { requeueAfter: 200 } : {};
      });
    await c.start();
    await waitFor(() => calls === 1, 'first reconcile');
    t.stub.put(widget('timer', 2));
    await waitFor(() => calls === 2, 'the change reconciles');
    await new Promise((r) => setTimeout(r, 350));
    await c.stop();
    assert.equal(calls, 2, 'the pending requeueAfter was dropped: the latest reconcile had nothing left to do');
  });
});

describe('OwnWrites', () => {
  const obj = (rv: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', uid: 'u1', resourceVersion: rv },
  });

  it('recognises recorded writes by uid and resourceVersion; held events count unless all are echoes', () => {
    const own = new OwnWrites(2);
    own.record(obj('5'));
    assert.equal(own.isEcho(obj('5')), true);
    assert.equal(own.isEcho(obj('6')), false);
    own.hold('ns/x', obj('5'));
    assert.equal(own.release('ns/x'), false, 'only our own echo came');
    own.hold('ns/x', obj('5'));
    own.hold('ns/x', obj('7'));
    assert.equal(own.release('ns/x'), true, 'someone else wrote too');
    own.hold('ns/x', undefined);
    assert.equal(own.release('ns/x'), true, 'a deletion always counts');
    assert.equal(own.release('ns/x'), false, 'nothing held');
    own.record(obj('8'));
    own.record(obj('9'));
    assert.equal(own.isEcho(obj('5')), false, 'the oldest is forgotten past the limit');
  });

  it('a write made by the reconcile of one key is an echo for that key alone', () => {
    const own = new OwnWrites();
    own.record(obj('5'), 'ns/a');
    assert.equal(own.isEcho(obj('5'), 'ns/a'), true);
    assert.equal(own.isEcho(obj('5'), 'ns/b'), false, 'another key has not seen it');
    own.hold('ns/b', obj('5'));
    assert.equal(own.release('ns/b'), true, 'held for another key, the write is news');
    own.hold('ns/a', obj('5'));
    assert.equal(own.release('ns/a'), false);
    own.record(obj('6'));
    assert.equal(own.isEcho(obj('6'), 'ns/b'), true, 'a write made outside any reconcile is an echo for every key');
  });
});

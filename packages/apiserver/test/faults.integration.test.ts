// Every fault the injector offers, scoped by user, verb and resource, in-process and over /debug/faults.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { partsOf } from '../src/handle.ts';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { openWatch, raw } from '../src/testing/index.ts';

const CMS = '/api/v1/namespaces/default/configmaps';

/** A watch read to its end: whether the server finished the chunked stream cleanly, and the events it sent. */
function cleanEnd(s: ApiServer, path: string): Promise<{ clean: boolean; events: string[] }> {
  return new Promise((resolve) => {
    const req = request(
      `${s.url}${path}`,
      { ca: s.caPem, headers: { Authorization: `Bearer ${s.adminToken}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const done = (clean: boolean) =>
          resolve({
            clean,
            events: text
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l).type),
          });
        res.on('end', () => done(true));
        res.on('aborted', () => done(false));
        res.on('error', () => done(false));
      },
    );
    req.on('error', () => resolve({ clean: false, events: [] }));
    req.end();
  });
}
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('fault injection', () => {
  let s: ApiServer;
  before(async () => {
    s = await startApiServer({ port: 0 });
    s.addToken('bob-token', { username: 'bob', groups: ['system:authenticated'] });
  });
  after(async () => {
    await s?.close();
  });

  it('fails matching requests with 500, 503 and 429 (with Retry-After) and leaves others alone', async () => {
    for (const code of [500, 503, 429] as const) {
      const id = s.faults.add({ verbs: ['list'], resources: ['configmaps'], error: code });
      const r = await raw(s, 'GET', CMS);
      assert.equal(r.status, code);
      assert.equal(r.json().kind, 'Status');
      if (code === 429) assert.equal(r.headers['retry-after'], '1');
      assert.equal(
        (await raw(s, 'GET', '/api/v1/namespaces/default/secrets')).status,
        200,
        'other resources unaffected',
      );
      assert.equal((await raw(s, 'POST', CMS, cm(`f-${code}`))).status, 201, 'other verbs unaffected');
      s.faults.remove(id);
    }
    assert.equal((await raw(s, 'GET', CMS)).status, 200);
  });

  it('applies a fraction of the time', async () => {
    const id = s.faults.add({ verbs: ['get'], error: 503, fraction: 0.5 });
    let failed = 0;
    for (let i = 0; i < 200; i++) if ((await raw(s, 'GET', `${CMS}/f-500`)).status === 503) failed++;
    s.faults.remove(id);
    assert.ok(failed > 50 && failed < 150, `about half failed (${failed}/200)`);
  });

  it('scopes by user', async () => {
    const id = s.faults.add({ users: ['bob'], error: 503 });
    assert.equal((await raw(s, 'GET', CMS, undefined, { token: 'bob-token' })).status, 503);
    assert.equal((await raw(s, 'GET', CMS)).status, 200);
    s.faults.remove(id);
  });

  it('adds latency', async () => {
    const id = s.faults.add({ verbs: ['get'], resources: ['configmaps'], latencyMs: 300 });
    const start = Date.now();
    assert.equal((await raw(s, 'GET', `${CMS}/f-500`)).status, 200);
    const took = Date.now() - start;
    s.faults.remove(id);
    assert.ok(took >= 290, `the request was delayed (${took} ms)`);
  });

  it('rejects writes with 409 Conflict', async () => {
    s.faults.add({ resources: ['configmaps'], conflict: true });
    const r = await raw(
      s,
      'PATCH',
      `${CMS}/f-500`,
      { data: { a: 'b' } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(r.status, 409);
    assert.equal(r.json().reason, 'Conflict');
    assert.equal((await raw(s, 'GET', `${CMS}/f-500`)).status, 200, 'reads unaffected');
    s.faults.clear();
  });

  it('closes, stalls and expires open watches', async () => {
    const w1 = openWatch(s, `${CMS}?watch=true`);
    await w1.next((e) => e.type === 'ADDED');
    s.faults.closeWatches();
    assert.equal(await w1.ended, 200);

    const w2 = openWatch(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
    await new Promise((r) => setTimeout(r, 100));
    s.faults.stallWatches(true);
    await raw(s, 'POST', CMS, cm('during-stall'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(w2.events.length, 0, 'a stalled watch receives nothing but stays open');
    s.faults.stallWatches(false);
    await w2.next((e) => e.object.metadata.name === 'during-stall');
    w2.stop();

    const rv = partsOf(s).core.store.currentRv();
    await raw(s, 'POST', CMS, cm('after-rv'));
    const w3 = openWatch(s, `${CMS}?watch=true&resourceVersion=${rv}`);
    await w3.next((e) => e.type === 'ADDED');
    s.faults.expireWatches();
    assert.equal(await w3.ended, 200, 'open watches are ended');
    const w4 = openWatch(s, `${CMS}?watch=true&resourceVersion=${rv}`);
    const err = await w4.next((e) => e.type === 'ERROR');
    assert.equal(err.object.code, 410);
  });

  it('holds the events of a stalled watch and delivers every one, in order, when it resumes', async () => {
    const w = openWatch(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await raw(s, 'POST', '/debug/faults/watches', { action: 'stall' })).status, 200);
    // a watch opened during the stall is stalled too
    const late = openWatch(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
    await new Promise((r) => setTimeout(r, 100));
    for (const name of ['held-1', 'held-2', 'held-3']) assert.equal((await raw(s, 'POST', CMS, cm(name))).status, 201);
    assert.equal(
      (await raw(s, 'PATCH', `${CMS}/held-1`, { data: { k: 'v' } }, { contentType: 'application/merge-patch+json' }))
        .status,
      200,
    );
    assert.equal((await raw(s, 'DELETE', `${CMS}/held-2`)).status, 200);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(w.events.length + late.events.length, 0, 'nothing arrives while stalled');
    assert.equal((await raw(s, 'POST', '/debug/faults/watches', { action: 'unstall' })).status, 200);
    const want = ['ADDED held-1', 'ADDED held-2', 'ADDED held-3', 'MODIFIED held-1', 'DELETED held-2'];
    for (const watch of [w, late]) {
      await watch.next((e) => e.type === 'DELETED');
      assert.deepEqual(
        watch.events.map((e) => `${e.type} ${e.object.metadata.name}`),
        want,
        'every held event, in commit order',
      );
    }
    // after the stall, events flow again as they happen
    await raw(s, 'POST', CMS, cm('after-unstall'));
    await w.next((e) => e.object.metadata.name === 'after-unstall');
    w.stop();
    late.stop();
  });

  it('drops a stalled watch that holds events when it is closed or expired, and ends an idle one cleanly', async () => {
    for (const action of ['close', 'expire'] as const) {
      const holding = cleanEnd(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
      await new Promise((r) => setTimeout(r, 100));
      s.faults.stallWatches(true);
      await raw(s, 'POST', CMS, cm(`dropped-${action}`));
      if (action === 'close') s.faults.closeWatches();
      else s.faults.expireWatches();
      assert.deepEqual(
        await holding,
        { clean: false, events: [] },
        `${action}: the held event is never delivered and the stream does not end cleanly`,
      );
      s.faults.stallWatches(false);
    }
    const idle = cleanEnd(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
    await new Promise((r) => setTimeout(r, 100));
    s.faults.stallWatches(true);
    s.faults.expireWatches();
    assert.deepEqual(await idle, { clean: true, events: [] }, 'a stalled watch holding nothing ends like any other');
    // clearing every fault also resumes stalled watches
    const w = openWatch(s, `${CMS}?watch=true&resourceVersion=${partsOf(s).core.store.currentRv()}`);
    await new Promise((r) => setTimeout(r, 100));
    await raw(s, 'POST', CMS, cm('released-by-clear'));
    assert.equal((await raw(s, 'DELETE', '/debug/faults')).status, 200);
    await w.next((e) => e.object.metadata.name === 'released-by-clear');
    w.stop();
  });

  it('is driven over /debug/faults by admins only', async () => {
    const denied = await raw(s, 'POST', '/debug/faults', { error: 503 }, { token: 'bob-token' });
    assert.equal(denied.status, 403);
    const added = await raw(s, 'POST', '/debug/faults', { verbs: ['list'], resources: ['secrets'], error: 503 });
    assert.equal(added.status, 201);
    assert.equal((await raw(s, 'GET', '/api/v1/namespaces/default/secrets')).status, 503);
    const listed = (await raw(s, 'GET', '/debug/faults')).json();
    assert.equal(listed.faults.length, 1);
    assert.equal((await raw(s, 'DELETE', `/debug/faults/${added.json().id}`)).status, 200);
    assert.equal((await raw(s, 'GET', '/api/v1/namespaces/default/secrets')).status, 200);
    assert.equal((await raw(s, 'POST', '/debug/faults', { fraction: 2, error: 503 })).status, 400);
    assert.equal((await raw(s, 'POST', '/debug/faults/watches', { action: 'expire' })).status, 200);
  });
});

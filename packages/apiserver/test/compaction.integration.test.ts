// History as kube-apiserver keeps it (docs/apiserver.md, "History: compaction, the watch cache and 410 Gone"):
// compactStorage() expires continue tokens and exact lists but not watches, which the watch history still
// serves until it starts over; and the bookmark that ends a watch's initial events. The fidelity suite
// compares the same answers with kube-apiserver's; this runs them on the embedded server alone, in `npm test`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { raw } from '../src/testing/index.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const SEL = 'labelSelector=h%3Dyes';
const cm = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { h: 'yes' } },
  data: { v },
});
const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('compaction, the watch history and 410 Gone', () => {
  let s: ApiServer;
  let rv: string;
  let token: string;

  before(async () => {
    s = await startApiServer({ port: 0 });
    for (const n of ['h1', 'h2', 'h3']) assert.equal((await raw(s, 'POST', CMS, cm(n, '1'))).status, 201);
    const page = (await raw(s, 'GET', `${CMS}?${SEL}&limit=1`)).json();
    rv = page.metadata.resourceVersion;
    token = page.metadata.continue;
    assert.equal((await raw(s, 'PUT', `${CMS}/h1`, cm('h1', '2'))).status, 200);
    s.compactStorage();
  });
  after(() => s?.close());

  it('a continue token from before the compaction is Expired, and the 410 offers one for the rest as of now', async () => {
    const gone = await raw(s, 'GET', `${CMS}?${SEL}&limit=1&continue=${encodeURIComponent(token)}`);
    assert.equal(gone.status, 410);
    const status = gone.json();
    assert.equal(status.reason, 'Expired');
    assert.match(status.message, /^The provided continue parameter is too old .* may show up in the list\.$/);
    const rest = await raw(s, 'GET', `${CMS}?${SEL}&limit=1&continue=${encodeURIComponent(status.metadata.continue)}`);
    assert.equal(rest.status, 200);
    const next = rest.json();
    assert.deepEqual(
      next.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['h2'],
    );
    const last = await raw(s, 'GET', `${CMS}?${SEL}&limit=1&continue=${encodeURIComponent(next.metadata.continue)}`);
    assert.deepEqual(
      last.json().items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['h3'],
    );
  });

  it('an exact list or a first page at a compacted resourceVersion is Expired; NotOlderThan is served', async () => {
    for (const q of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `limit=1&resourceVersion=${rv}`]) {
      const r = await raw(s, 'GET', `${CMS}?${SEL}&${q}`);
      assert.equal(r.status, 410, q);
      assert.equal(r.json().message, 'The resourceVersion for the provided list is too old.');
    }
    const served = await raw(s, 'GET', `${CMS}?${SEL}&limit=1&resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.equal(served.status, 200);
    assert.equal((await raw(s, 'GET', `${CMS}?${SEL}&limit=1&resourceVersion=0`)).status, 200);
  });

  it('a watch from a compacted resourceVersion replays the history; once it starts over, ERROR 410 Expired', async () => {
    const path = `${CMS}?watch=true&${SEL}&resourceVersion=${rv}&timeoutSeconds=1`;
    const replayed = lines((await raw(s, 'GET', path)).text);
    assert.deepEqual(
      replayed.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.data.v}`),
      ['MODIFIED h1 2'],
    );
    s.faults.expireWatches();
    const [error, ...more] = lines((await raw(s, 'GET', path)).text);
    assert.equal(more.length, 0);
    assert.equal(error.type, 'ERROR');
    assert.equal(error.object.code, 410);
    assert.equal(error.object.reason, 'Expired');
    assert.match(error.object.message, new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
  });

  it('a watch from 0 with bookmarks ends its initial events with an annotated bookmark; without, none', async () => {
    const events = lines(
      (await raw(s, 'GET', `${CMS}?watch=true&${SEL}&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1`))
        .text,
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'ADDED', 'ADDED', 'BOOKMARK'],
    );
    const bookmark = events[3].object;
    assert.equal(bookmark.metadata.creationTimestamp, null);
    assert.equal(bookmark.metadata.annotations['k8s.io/initial-events-end'], 'true');
    assert.equal(
      Buffer.from(bookmark.metadata.annotations['kubernetes.io/initial-events-list-blueprint'], 'base64').toString(),
      '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}\n',
    );
    const plain = lines((await raw(s, 'GET', `${CMS}?watch=true&${SEL}&resourceVersion=0&timeoutSeconds=1`)).text);
    assert.deepEqual(
      plain.map((e) => e.type),
      ['ADDED', 'ADDED', 'ADDED'],
    );
  });
});

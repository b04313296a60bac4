import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { ListWatch, type ListWatchOptions } from '../src/cache/listwatch.ts';
import { KubeClient } from '../src/client/client.ts';
import { Logger } from '../src/log.ts';
import type { KubeObject } from '../src/meta/types.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { StubApiServer, waitFor } from './helpers/stub-apiserver.ts';

const PATH = '/api/v1/namespaces/ns/configmaps';

/** mirrors what an informer does with the handler calls: a map name → object */
class Mirror {
  readonly objects = new Map<string, KubeObject>();
  replaces = 0;
  events: string[] = [];
  replace(items: KubeObject[]): void {
    this.replaces++;
    this.objects.clear();
    for (const o of items) this.objects.set(o.metadata.name!, o);
  }
  event(type: string, obj: KubeObject): void {
    this.events.push(`${type}:${obj.metadata.name}`);
    if (type === 'DELETED') this.objects.delete(obj.metadata.name!);
    else this.objects.set(obj.metadata.name!, obj);
  }
  names(): string[] {
    return [...this.objects.keys()].sort();
  }
}

function cm(name: string, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data };
}

describe('ListWatch', () => {
  let stub: StubApiServer;
  let client: KubeClient;
  let lw: ListWatch | undefined;
  let mirror: Mirror;
  let logLines: string[];

  before(async () => {
    stub = await new StubApiServer().start();
    client = await KubeClient.create(stub.kubeconfig());
  });
  after(async () => {
    client.close();
    await stub.close();
  });
  beforeEach(() => {
    mirror = new Mirror();
    logLines = [];
    for (const o of stub.list('configmaps')) stub.remove('v1', 'ConfigMap', o.metadata.name, 'ns');
    stub.requests.length = 0;
  });
  afterEach(async () => {
    await lw?.stop();
    lw = undefined;
    // the server sees a stopped watch close a moment later; a test that counted it as its own open watch
    // would stall the previous test's stream instead of its own
    await waitFor(() => stub.openWatches() === 0, "the previous test's watch closed on the server");
  });

  function start(over: Partial<ListWatchOptions> = {}): ListWatch {
    lw = new ListWatch({
      transport: client.transport,
      path: PATH,
      resource: 'configmaps',
      handler: mirror,
      backoffInitialMs: 20,
      backoffMaxMs: 200,
      inactivityTimeoutMs: 5000,
      logger: new Logger({}, 'debug', { write: (l) => logLines.push(l) }),
      metrics: new RuntimeMetrics(),
      ...over,
    });
    lw.start();
    return lw;
  }

  const watches = () => stub.requests.filter((r) => r.query.get('watch') === 'true');
  const lists = () => stub.requests.filter((r) => r.method === 'GET' && r.path === PATH && !r.query.has('watch'));

  it('lists in pages, then watches from the list resourceVersion with bookmarks and a random 300–600 s timeout', async () => {
    for (let i = 0; i < 5; i++) stub.put(cm(`c${i}`));
    const l = start({ pageSize: 2 });
    await waitFor(() => l.hasSynced && stub.openWatches() === 1, 'sync and watch');
    assert.deepEqual(mirror.names(), ['c0', 'c1', 'c2', 'c3', 'c4']);
    assert.equal(lists().length, 3, 'three pages of two');
    assert.equal(lists()[0]!.query.get('limit'), '2');
    const w = watches()[0]!;
    assert.equal(w.query.get('allowWatchBookmarks'), 'true');
    assert.equal(w.query.get('resourceVersion'), l.resourceVersion);
    const t = Number(w.query.get('timeoutSeconds'));
    assert.ok(t >= 300 && t <= 600, `timeoutSeconds=${t}`);
    stub.put(cm('c5'));
    await waitFor(() => mirror.objects.has('c5'), 'watch event');
  });

  it('a bookmark advances the resourceVersion; a graceful end resumes from it without relisting', async () => {
    const l = start();
    await waitFor(() => stub.openWatches() === 1, 'watch');
    stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: 'elsewhere', namespace: 'ns' } });
    stub.sendBookmark();
    const bookmarkRv = String(
      stub.getObject('test.modelplane.io/v1', 'Widget', 'elsewhere', 'ns')!.metadata.resourceVersion,
    );
    await waitFor(() => l.resourceVersion === bookmarkRv, 'bookmark applied');
    stub.endWatches();
    await waitFor(() => watches().length === 2, 'second watch');
    assert.equal(watches()[1]!.query.get('resourceVersion'), bookmarkRv);
    assert.equal(lists().length, 1, 'no relist after a graceful end');
  });

  it('an abrupt close resumes from the last resourceVersion and loses no event', async () => {
    stub.put(cm('a'));
    start();
    await waitFor(() => stub.openWatches() === 1, 'watch');
    stub.put(cm('b'));
    await waitFor(() => mirror.objects.has('b'), 'b');
    stub.closeWatchesAbruptly();
    // written while no watch is open: must arrive through the resumed watch's replay
    stub.put(cm('c'));
    stub.remove('v1', 'ConfigMap', 'a', 'ns');
    await waitFor(() => mirror.objects.has('c') && !mirror.objects.has('a'), 'c added and a deleted after resume');
    assert.equal(lists().length, 1, 'resume, not relist');
    assert.deepEqual(mirror.names(), ['b', 'c']);
  });

  it('410 Gone relists, and the relist reflects deletions made while the watch was gone', async () => {
    stub.put(cm('keep'));
    stub.put(cm('doomed'));
    start();
    await waitFor(() => stub.openWatches() === 1, 'watch');
    stub.stallWatches();
    stub.remove('v1', 'ConfigMap', 'doomed', 'ns');
    stub.put(cm('fresh'));
    stub.expireOpenWatches();
    await waitFor(() => mirror.replaces === 2, 'relist');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(mirror.replaces, 2, 'exactly one relist');
    assert.deepEqual(mirror.names(), ['fresh', 'keep']);
    assert.match(logLines.join(''), /resourceVersion expired, relisting/);
  });

  it('a watch that resumes from a compacted resourceVersion gets 410 and relists', async () => {
    start();
    await waitFor(() => stub.openWatches() === 1, 'watch');
    stub.closeWatchesAbruptly();
    stub.put(cm('after-compaction'));
    stub.compact();
    await waitFor(() => mirror.objects.has('after-compaction'), 'seen via relist');
    assert.equal(lists().length, 2);
  });

  it('the inactivity watchdog aborts a stalled stream and resumes; nothing written during the stall is lost', async () => {
    start({ inactivityTimeoutMs: 300 });
    await waitFor(() => stub.openWatches() === 1, 'watch');
    stub.stallWatches();
    stub.put(cm('during-stall'));
    await waitFor(() => mirror.objects.has('during-stall'), 'object written during the stall', 3000);
    assert.ok(watches().length >= 2);
    assert.match(logLines.join(''), /watch stalled, reconnecting/);
  });

  it('retries list and watch through a burst of 503s with growing delays', async () => {
    stub.put(cm('x'));
    stub.failNext(4, 503, (r) => r.path === PATH);
    const t0 = Date.now();
    const l = start();
    await waitFor(() => l.hasSynced && stub.openWatches() === 1, 'synced after the burst', 5000);
    assert.deepEqual(mirror.names(), ['x']);
    // backoff 20, 40, 80, 160 ms (+ up to 50 % jitter, capped at 200)
    assert.ok(Date.now() - t0 >= 250, `retried too fast: ${Date.now() - t0} ms`);
    stub.failNext(3, 503, (r) => r.query.get('watch') === 'true');
    stub.closeWatchesAbruptly();
    stub.put(cm('y'));
    await waitFor(() => mirror.objects.has('y'), 'y after watch 503s');
    assert.equal(lists().filter((r) => r.path === PATH).length >= 1, true);
  });

  it('honours Retry-After on 429', async () => {
    stub.failNext(1, 429, (r) => r.path === PATH, 1);
    const t0 = Date.now();
    const l = start();
    await waitFor(() => l.hasSynced, 'synced', 4000);
    assert.ok(Date.now() - t0 >= 950, `retried after ${Date.now() - t0} ms despite Retry-After: 1`);
  });

  it('stop() ends the watch promptly, logs no error and makes no further requests', async () => {
    const l = start();
    await waitFor(() => stub.openWatches() === 1, 'watch');
    const t0 = Date.now();
    await l.stop();
    assert.ok(Date.now() - t0 < 500);
    const count = stub.requests.length;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(stub.requests.length, count);
    await waitFor(() => stub.openWatches() === 0, 'server saw the watch close');
    const problems = logLines.filter((l) => /"level":"(warn|error)"/.test(l));
    assert.deepEqual(problems, []);
  });
});

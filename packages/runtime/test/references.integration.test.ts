// ReferencedObjectWatch against the test cluster: a Secret a Widget names is watched by name (metadata only,
// never listed), its creation and every change enqueue exactly the Widgets naming it, a Secret nobody names
// is never seen, and the watches follow the references (one per Secret, closed with the last reference).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FaultInjection, startFaultInjection } from '@modelplane/apiserver/testing';
import { Cache } from '../src/cache/cache.ts';
import { KubeClient } from '../src/client/client.ts';
import { Secrets } from '../src/client/kinds.ts';
import { ReferencedObjectWatch } from '../src/controller/references.ts';
import type { KubeObject } from '../src/meta/types.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { ensureNamespace, startCluster, type TestCluster, type Widget, Widgets, widget } from './helpers/cluster.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

const NS = 'refs';
const TIMEOUT = 30_000;

interface Enqueued {
  keys: string[];
  secret: string;
  /** what the watch delivered besides metadata (must be nothing: the watch is metadata-only) */
  extra: string[];
}

const secret = (name: string, value: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    stringData: { token: value },
  }) as KubeObject;

const naming = (name: string, note: string): Widget => ({ ...widget(name, NS), spec: { size: 1, note } });

describe('ReferencedObjectWatch', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let cache: Cache;
  let refs: ReferencedObjectWatch;
  const enqueued: Enqueued[] = [];
  const metrics = new RuntimeMetrics();

  before(async () => {
    cluster = await startCluster();
    await ensureNamespace(cluster.admin, NS);
    client = await KubeClient.create(cluster.operatorKubeconfig);
    cache = new Cache({ client, metrics });
    cache.start();
    refs = new ReferencedObjectWatch({
      name: 'widget-secrets',
      kind: Secrets,
      client,
      cache,
      metrics,
      sources: [
        {
          kind: Widgets,
          references: (w: Widget) => (w.spec?.note ? [{ namespace: NS, name: w.spec.note }] : []),
          controller: {
            enqueueChange: (keys, changed) =>
              enqueued.push({
                keys: [...keys].sort(),
                secret: changed?.metadata.name ?? '(deleted)',
                extra: Object.keys(changed ?? {}).filter((k) => !['apiVersion', 'kind', 'metadata'].includes(k)),
              }),
          },
        },
      ],
    });
    await refs.start();
  });

  after(async () => {
    await refs?.stop();
    await cache?.stop();
    client?.close();
    await cluster?.close();
  });

  it('a named Secret created later and then changed enqueues its Widget each time; an unnamed one never', async () => {
    await cluster.admin.create(naming('w1', 'regcred'));
    await waitFor(() => refs.watched().join() === `${NS}/regcred`, 'the watch of refs/regcred', TIMEOUT);
    // a Secret nobody names, created and changed before the named one: no watch exists that could see it
    await cluster.admin.create(secret('unrelated', 'a'));
    await cluster.admin.apply(secret('unrelated', 'b'));
    await cluster.admin.create(secret('regcred', 'wrong'));
    await waitFor(() => enqueued.length === 1, 'the creation of refs/regcred', TIMEOUT);
    await cluster.admin.apply(secret('regcred', 'right'));
    await waitFor(() => enqueued.length === 2, 'the change of refs/regcred', TIMEOUT);
    assert.deepEqual(enqueued, [
      { keys: [`${NS}/w1`], secret: 'regcred', extra: [] },
      { keys: [`${NS}/w1`], secret: 'regcred', extra: [] },
    ]);
    assert.equal(refs.resourceVersion(NS, 'unrelated'), undefined);
    const live = await cluster.admin.get(Secrets, 'regcred', NS);
    await waitFor(() => refs.resourceVersion(NS, 'regcred') === live.metadata.resourceVersion, 'rv', TIMEOUT);
  });

  it('one watch per Secret however many name it; both namers are enqueued; references follow edits', async () => {
    enqueued.length = 0;
    await cluster.admin.create(naming('w2', 'regcred'));
    await cluster.admin.create(naming('w3', 'other'));
    await waitFor(() => refs.watched().join() === `${NS}/other,${NS}/regcred`, 'two watches', TIMEOUT);
    await cluster.admin.apply(secret('regcred', 'rotated'));
    await waitFor(() => enqueued.some((e) => e.keys.length === 2), 'both namers of regcred', TIMEOUT);
    assert.deepEqual(enqueued.filter((e) => e.secret === 'regcred').at(-1)?.keys, [`${NS}/w1`, `${NS}/w2`]);
    const gauge = (await metrics.referencedWatches.get()).values.find((v) => v.labels.name === 'widget-secrets');
    assert.equal(gauge?.value, 2);
    // w3 stops naming `other`: its watch closes; deleting w1 and w2 closes regcred's
    await cluster.admin.patch(Widgets, 'w3', NS, { spec: { note: null } }, 'merge');
    await waitFor(() => refs.watched().join() === `${NS}/regcred`, 'other released', TIMEOUT);
    await cluster.admin.delete(Widgets, 'w1', NS);
    await cluster.admin.delete(Widgets, 'w2', NS);
    await waitFor(() => refs.watched().length === 0, 'regcred released', TIMEOUT);
    // a change nobody names any more reaches nobody
    const before = enqueued.length;
    await cluster.admin.create(naming('w4', 'regcred'));
    await waitFor(() => refs.watched().length === 1, 'regcred watched again', TIMEOUT);
    // the new watch's first event is the Secret as it is: w4 may have been reconciled before it existed
    await waitFor(() => enqueued.length === before + 1, 'the first sight enqueues w4', TIMEOUT);
    assert.deepEqual(enqueued.at(-1)?.keys, [`${NS}/w4`]);
  });

  it('never lists Secrets; every Secret request is a watch pinned to a named Secret', async () => {
    await refs.stop();
    const mine = () =>
      cluster.auditEntries().filter((e) => e.user === cluster.operatorUser && e.resource.startsWith('secrets'));
    // a watch is recorded when it ends
    await waitFor(() => mine().length >= 3, 'the watches recorded', TIMEOUT).catch((err) => {
      console.log(JSON.stringify(cluster.auditEntries().filter((e) => e.resource.startsWith('secrets'))));
      throw err;
    });
    const seen = mine().map((e) => `${e.verb} ${e.namespace}/${e.name}`);
    assert.deepEqual([...new Set(seen)].sort(), [`watch ${NS}/other`, `watch ${NS}/regcred`]);
  });
});

describe('ReferencedObjectWatch under watch faults', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let injection: FaultInjection;
  let client: KubeClient;
  let cache: Cache;
  let refs: ReferencedObjectWatch;
  const enqueued: string[] = [];
  const metrics = new RuntimeMetrics();

  before(async () => {
    cluster = await startCluster();
    injection = await startFaultInjection(cluster.backend.real ?? cluster.srv);
    await ensureNamespace(cluster.admin, NS);
    // the operator's requests go where the faults act; the admin's never meet one
    client = await KubeClient.create(injection.route(cluster.operatorKubeconfig), { timeoutMs: 3000 });
    const tuning = { inactivityTimeoutMs: 1500, backoffInitialMs: 50, backoffMaxMs: 500 };
    cache = new Cache({ client, metrics, tuning });
    cache.start();
    refs = new ReferencedObjectWatch({
      name: 'widget-secrets',
      kind: Secrets,
      client,
      cache,
      tuning,
      metrics,
      sources: [
        {
          kind: Widgets,
          references: (w: Widget) => (w.spec?.note ? [{ namespace: NS, name: w.spec.note }] : []),
          controller: { enqueueChange: (_keys, changed) => enqueued.push(changed?.metadata.resourceVersion ?? '-') },
        },
      ],
    });
    await refs.start();
  });

  after(async () => {
    injection?.faults.stallWatches(false);
    await refs?.stop();
    await cache?.stop();
    client?.close();
    await injection?.stop();
    await cluster?.close();
  });

  it('a change made while the watch was down arrives once; a restarted watch replaying the same version adds nothing', async () => {
    const faults = injection.faults;
    await cluster.admin.create(naming('w', 'tok'));
    const v1 = (await cluster.admin.create(secret('tok', 'a'))).metadata.resourceVersion!;
    await waitFor(() => enqueued.includes(v1), 'the creation of tok', TIMEOUT);
    // changed while no event can get through, then history compacted: the watch restarts from nothing
    faults.stallWatches(true);
    const v2 = (await cluster.admin.apply(secret('tok', 'b'))).metadata.resourceVersion!;
    await faults.expireWatches();
    faults.stallWatches(false);
    faults.closeWatches();
    await waitFor(() => enqueued.includes(v2), 'the change made while the watch was down', TIMEOUT);
    // restarted from nothing after a 410 with nothing new: the replay of v2 is seen and enqueues nothing
    const replays = async () =>
      (await metrics.referencedEvents.get()).values.find((v) => v.labels.outcome === 'unchanged')?.value ?? 0;
    const before = await replays();
    await cluster.admin.create(secret('noise', 'x')); // history moves past v2 …
    await faults.expireWatches(); // … and is compacted: resuming from v2 is refused (410)
    faults.closeWatches();
    await waitFor(async () => (await replays()) > before, 'the restarted watch replaying v2', TIMEOUT);
    assert.deepEqual(enqueued, [v1, v2]);
    const v3 = (await cluster.admin.apply(secret('tok', 'c'))).metadata.resourceVersion!;
    await waitFor(() => enqueued.includes(v3), 'the next change', TIMEOUT);
    assert.deepEqual(enqueued, [v1, v2, v3]);
  });

  it('a Secret deleted while the watch was down (its history expired) is reported deleted', async () => {
    const faults = injection.faults;
    await cluster.admin.create(naming('d', 'doomed'));
    const v1 = (await cluster.admin.create(secret('doomed', 'a'))).metadata.resourceVersion!;
    await waitFor(() => enqueued.includes(v1), 'the creation of doomed', TIMEOUT);
    const deletions = () => enqueued.filter((e) => e === '-').length;
    const before = deletions();
    // deleted while no event can get through, then history compacted: the restarted watch from nothing
    // replays what exists, and doomed does not
    faults.stallWatches(true);
    await cluster.admin.delete(Secrets, 'doomed', NS);
    await faults.expireWatches();
    faults.stallWatches(false);
    faults.closeWatches();
    await waitFor(() => deletions() > before, 'the deletion made while the watch was down', TIMEOUT);
    assert.equal(deletions(), before + 1);
  });
});

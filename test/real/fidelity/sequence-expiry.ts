// The recorded sequence, part 3: what a client meets once history is gone, and bookmarks. etcd compacts
// its revisions under a paginated list and under lists and watches at an old resourceVersion (the watch
// cache still serves those watches); then the watch cache starts over (a kube-apiserver restart) and a
// watch from before it ends with an ERROR event carrying 410 Expired. Runs last: the restart resets the
// real server's caches. docs/apiserver.md lists the differences and why they are kept.

import { raw } from '@modelplane/apiserver/testing';
import { NS } from './sequence-core.ts';
import { GROUP } from './sequence-more.ts';
import { action, http, type Step, wait } from './steps.ts';

const cms = `/api/v1/namespaces/${NS}/configmaps`;
const widgets = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const SELECTOR = 'labelSelector=expiry%3Dyes';
const cm = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels: { expiry: 'yes' } },
  data: { v },
});
const listPage = (list: any) =>
  Array.isArray(list?.items)
    ? { names: list.items.map((i: any) => i.metadata?.name), continued: Boolean(list.metadata?.continue) }
    : list;
/** each event as type and name; an ERROR or BOOKMARK whole (resourceVersions are normalised) */
const events = (e: any) =>
  Array.isArray(e)
    ? e.map((x: any) =>
        x.type === 'ERROR' || x.type === 'BOOKMARK' ? x : `${x.type} ${x.object?.metadata?.name} ${x.object?.data?.v}`,
      )
    : e;
const saved = (key: string) => (t: { saved: Map<string, string> }) => t.saved.get(key) ?? '';

export const expirySteps: Step[] = [
  ...['x1', 'x2', 'x3'].map((n) =>
    http('compaction', `create ${n}`, 'POST', cms, cm(n, '1'), { pick: (b) => b.metadata?.name }),
  ),
  http('compaction', 'first page before the compaction', 'GET', `${cms}?${SELECTOR}&limit=1`, undefined, {
    pick: listPage,
    save: (b, t) => {
      t.saved.set('expiry-continue', b.metadata?.continue ?? '');
      t.saved.set('expiry-rv', b.metadata?.resourceVersion ?? '');
    },
  }),
  http('compaction', 'update x1 after the page', 'PUT', `${cms}/x1`, cm('x1', '2'), { pick: (b) => b.data }),
  action('etcd compacts every revision so far', (t) => t.compactStorage()),
  http(
    'compaction',
    'continue a list from before the compaction → Expired',
    'GET',
    (t) => `${cms}?${SELECTOR}&limit=1&continue=${encodeURIComponent(saved('expiry-continue')(t))}`,
    undefined,
    { save: (b, t) => t.saved.set('expiry-inconsistent', b.metadata?.continue ?? '') },
  ),
  http(
    'compaction',
    'continue with the token the 410 offers: the rest, as of now',
    'GET',
    (t) => `${cms}?${SELECTOR}&limit=1&continue=${encodeURIComponent(saved('expiry-inconsistent')(t))}`,
    undefined,
    { pick: listPage },
  ),
  http(
    'compaction',
    'first page at a compacted resourceVersion → Expired',
    'GET',
    (t) => `${cms}?${SELECTOR}&limit=1&resourceVersion=${saved('expiry-rv')(t)}`,
  ),
  http(
    'compaction',
    'list at exactly a compacted resourceVersion → Expired',
    'GET',
    (t) => `${cms}?${SELECTOR}&resourceVersion=${saved('expiry-rv')(t)}&resourceVersionMatch=Exact`,
  ),
  http(
    'compaction',
    'list not older than a compacted resourceVersion',
    'GET',
    (t) => `${cms}?${SELECTOR}&limit=2&resourceVersion=${saved('expiry-rv')(t)}&resourceVersionMatch=NotOlderThan`,
    undefined,
    { pick: listPage },
  ),
  http(
    'compaction',
    'watch from a compacted resourceVersion replays the watch cache',
    'GET',
    (t) => `${cms}?watch=true&${SELECTOR}&resourceVersion=${saved('expiry-rv')(t)}&timeoutSeconds=1`,
    undefined,
    { pick: events },
  ),
  action('the watch cache starts over (kube-apiserver restarts)', (t) => t.restartWatchCache()),
  // kube-apiserver answers 429 "storage is (re)initializing" until each resource's watch cache is ready
  wait('the watch caches are ready again', async (t) =>
    (await Promise.all([cms, widgets].map((p) => raw(t, 'GET', `${p}?watch=true&timeoutSeconds=1`)))).every(
      (r) => r.status === 200,
    ),
  ),
  http(
    'compaction',
    'watch from before the watch cache → ERROR Expired',
    'GET',
    (t) => `${cms}?watch=true&${SELECTOR}&resourceVersion=${saved('expiry-rv')(t)}&timeoutSeconds=1`,
    undefined,
    { pick: events },
  ),
  http(
    'compaction',
    'watch with bookmarks from before the watch cache → ERROR Expired',
    'GET',
    (t) =>
      `${cms}?watch=true&${SELECTOR}&resourceVersion=${saved('expiry-rv')(t)}&allowWatchBookmarks=true&timeoutSeconds=1`,
    undefined,
    { pick: events },
  ),
  http('compaction', 'a fresh list after the 410', 'GET', `${cms}?${SELECTOR}`, undefined, { pick: listPage }),
  // a watch from "0" (or unset) with bookmarks: its initial events, then the bookmark that ends them
  http(
    'watch',
    'bookmark ending the initial events of a watch from 0',
    'GET',
    `${cms}?watch=true&${SELECTOR}&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1`,
    undefined,
    { pick: events },
  ),
  http(
    'watch',
    'bookmark ending the initial events of a custom resource watch',
    'GET',
    `${widgets}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1`,
    undefined,
    { pick: (e) => (Array.isArray(e) ? e.filter((x: any) => x.type === 'BOOKMARK') : e) },
  ),
  http(
    'watch',
    'no bookmark without allowWatchBookmarks',
    'GET',
    `${cms}?watch=true&${SELECTOR}&resourceVersion=0&timeoutSeconds=1`,
    undefined,
    { pick: events },
  ),
];

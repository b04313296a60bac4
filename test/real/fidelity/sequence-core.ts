// The recorded sequence, part 1: CRUD, every patch type, server-side apply conflicts, watches, pagination
// and selectors, on ConfigMaps and a Deployment in the `fidelity` namespace.
import { answers, http, type Step, wait } from './steps.ts';

export const NS = 'fidelity';
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const deploys = `/apis/apps/v1/namespaces/${NS}/deployments`;
const cm = (name: string, data: Record<string, string> = { a: '1' }, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
  data,
});
const names = (list: any) => (Array.isArray(list?.items) ? list.items.map((i: any) => i.metadata?.name) : list);
const listPage = (list: any) =>
  Array.isArray(list?.items)
    ? {
        names: names(list),
        continued: Boolean(list.metadata?.continue),
        remainingItemCount: list.metadata?.remainingItemCount,
      }
    : list;
const web = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
    },
  },
};
const watchSummary = (events: any) =>
  Array.isArray(events)
    ? events.map((e: any) =>
        `${e.type} ${e.object?.metadata?.name ?? ''} ${e.object?.code ?? ''} ${e.object?.reason ?? ''} ${e.object?.metadata?.annotations?.['k8s.io/initial-events-end'] ?? ''}`.trim(),
      )
    : events;

export const crudSteps: Step[] = [
  http('crud', 'create namespace', 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  }),
  wait('the namespace default ServiceAccount', answers(`/api/v1/namespaces/${NS}/serviceaccounts/default`, 200)),
  http('crud', 'create configmap', 'POST', cms, cm('a')),
  http('crud', 'create existing → AlreadyExists', 'POST', cms, cm('a')),
  http('crud', 'get', 'GET', `${cms}/a`),
  http('crud', 'get missing → NotFound', 'GET', `${cms}/missing`),
  http('crud', 'update with a stale resourceVersion → Conflict', 'PUT', `${cms}/a`, {
    ...cm('a', { a: '2' }),
    metadata: { name: 'a', namespace: NS, resourceVersion: '1' },
  }),
  http('crud', 'unconditional update', 'PUT', `${cms}/a`, cm('a', { a: '3' })),
  http('crud', 'update of a missing object → NotFound', 'PUT', `${cms}/nope`, cm('nope')),
  http('crud', 'invalid name → Invalid', 'POST', cms, cm('Bad_Name')),
  http('crud', 'invalid data key → Invalid', 'POST', cms, cm('badkey', { 'a/b': 'x' })),
  http('crud', 'namespace missing → NotFound', 'POST', '/api/v1/namespaces/nowhere/configmaps', {
    ...cm('x'),
    metadata: { name: 'x' },
  }),
  http('crud', 'body namespace differs from path → BadRequest', 'POST', cms, {
    ...cm('x'),
    metadata: { name: 'x', namespace: 'other' },
  }),
  http('crud', 'wrong kind for the endpoint → BadRequest', 'POST', cms, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'x' },
  }),
  http('crud', 'malformed JSON → BadRequest', 'POST', cms, '{"apiVersion": "v1", "kind": ', {
    contentType: 'application/json',
  }),
  http(
    'crud',
    'generateName',
    'POST',
    cms,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
    {
      pick: (b) => ({
        kind: b.kind,
        prefix: String(b.metadata?.name ?? '').slice(0, 4),
        length: String(b.metadata?.name ?? '').length,
      }),
    },
  ),
  http('crud', 'dry-run create', 'POST', `${cms}?dryRun=All`, cm('dry')),
  http('crud', 'dry-run object is not stored', 'GET', `${cms}/dry`),
  http('crud', 'delete', 'DELETE', `${cms}/a`),
  http('crud', 'delete missing → NotFound', 'DELETE', `${cms}/a`),
  http('crud', 'unknown resource → NotFound', 'GET', `/api/v1/namespaces/${NS}/widgetz`),
];

export const patchSteps: Step[] = [
  http('patch', 'create configmap p', 'POST', cms, cm('p', { a: '1', b: '2' })),
  http(
    'patch',
    'merge patch',
    'PATCH',
    `${cms}/p`,
    { data: { b: null, c: '3' } },
    { contentType: 'application/merge-patch+json' },
  ),
  http(
    'patch',
    'JSON patch',
    'PATCH',
    `${cms}/p`,
    [
      { op: 'add', path: '/data/d', value: '4' },
      { op: 'replace', path: '/data/a', value: 'one' },
    ],
    { contentType: 'application/json-patch+json' },
  ),
  http('patch', 'JSON patch failing test op', 'PATCH', `${cms}/p`, [{ op: 'test', path: '/data/a', value: 'nope' }], {
    contentType: 'application/json-patch+json',
  }),
  http('patch', 'JSON patch of a missing path', 'PATCH', `${cms}/p`, [{ op: 'remove', path: '/data/zzz' }], {
    contentType: 'application/json-patch+json',
  }),
  http('patch', 'malformed patch → BadRequest', 'PATCH', `${cms}/p`, '{not json', {
    contentType: 'application/merge-patch+json',
  }),
  http(
    'patch',
    'unsupported patch content type',
    'PATCH',
    `${cms}/p`,
    { data: {} },
    {
      contentType: 'text/plain',
      headers: { 'Transfer-Encoding': 'chunked' },
    },
  ),
  http(
    'patch',
    'unsupported patch content type, body of a known length',
    'PATCH',
    `${cms}/p`,
    { data: {} },
    {
      contentType: 'text/plain',
    },
  ),
  http(
    'patch',
    'patch of a missing object → NotFound',
    'PATCH',
    `${cms}/missing`,
    { data: {} },
    { contentType: 'application/merge-patch+json' },
  ),
  http('patch', 'create deployment', 'POST', deploys, web, {
    pick: (b) => ({ spec: b.spec, generation: b.metadata?.generation, code: b.code }),
  }),
  http(
    'patch',
    'strategic merge adds a container by name',
    'PATCH',
    `${deploys}/web`,
    { spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } },
    { contentType: 'application/strategic-merge-patch+json', pick: (b) => b.spec?.template?.spec?.containers ?? b },
  ),
  http(
    'patch',
    'strategic merge $patch: delete',
    'PATCH',
    `${deploys}/web`,
    { spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } } },
    { contentType: 'application/strategic-merge-patch+json', pick: (b) => b.spec?.template?.spec?.containers ?? b },
  ),
  http(
    'patch',
    'merge patch replaces the list',
    'PATCH',
    `${deploys}/web`,
    { spec: { template: { spec: { containers: [{ name: 'only', image: 'nginx:2' }] } } } },
    { contentType: 'application/merge-patch+json', pick: (b) => b.spec?.template?.spec?.containers ?? b },
  ),
  http(
    'patch',
    'invalid replicas → Invalid',
    'PATCH',
    `${deploys}/web`,
    { spec: { replicas: -1 } },
    { contentType: 'application/merge-patch+json' },
  ),
  // (status.replicas is left out: kube-controller-manager's Deployment controller fills it in on its own time)
  http('patch', 'scale subresource', 'GET', `${deploys}/web/scale`, undefined, {
    pick: (b) => ({ ...b, status: { ...b.status, replicas: undefined } }),
  }),
  http(
    'patch',
    'scale update',
    'PATCH',
    `${deploys}/web/scale`,
    { spec: { replicas: 0 } },
    { contentType: 'application/merge-patch+json', pick: (b) => ({ kind: b.kind, spec: b.spec }) },
  ),
  http('ssa', 'apply as alice', 'PATCH', `${cms}/s?fieldManager=alice`, cm('s', { owner: 'alice' }), {
    contentType: 'application/apply-patch+yaml',
    pick: (b) => ({
      data: b.data,
      managers: b.metadata?.managedFields?.map((m: any) => `${m.manager} ${m.operation}`),
    }),
  }),
  http('ssa', 'apply as bob → Conflict', 'PATCH', `${cms}/s?fieldManager=bob`, cm('s', { owner: 'bob' }), {
    contentType: 'application/apply-patch+yaml',
  }),
  http('ssa', 'apply as bob with force', 'PATCH', `${cms}/s?fieldManager=bob&force=true`, cm('s', { owner: 'bob' }), {
    contentType: 'application/apply-patch+yaml',
    pick: (b) => ({ data: b.data, managedFields: b.metadata?.managedFields }),
  }),
  http('ssa', 'apply without fieldManager → BadRequest', 'PATCH', `${cms}/s`, cm('s'), {
    contentType: 'application/apply-patch+yaml',
  }),
  http(
    'ssa',
    'apply with force on a non-apply patch → BadRequest',
    'PATCH',
    `${cms}/s?force=true`,
    { data: {} },
    { contentType: 'application/merge-patch+json' },
  ),
  http('ssa', 'apply that creates', 'PATCH', `${cms}/s2?fieldManager=carol`, cm('s2', { x: '1' }), {
    contentType: 'application/apply-patch+yaml',
    pick: (b) => ({
      data: b.data,
      managers: b.metadata?.managedFields?.map((m: any) => `${m.manager} ${m.operation} ${JSON.stringify(m.fieldsV1)}`),
    }),
  }),
  http(
    'ssa',
    'update then apply keeps both managers',
    'PUT',
    `${cms}/s2?fieldManager=dave`,
    cm('s2', { x: '1', y: '2' }),
    {
      pick: (b) =>
        b.metadata?.managedFields?.map((m: any) => `${m.manager} ${m.operation} ${JSON.stringify(m.fieldsV1)}`),
    },
  ),
];

export const listSteps: Step[] = [
  ...[0, 1, 2, 3, 4].map((i) =>
    http(
      'list',
      `create page-${i}`,
      'POST',
      cms,
      cm(`page-${i}`, { i: String(i) }, { page: 'yes', parity: i % 2 ? 'odd' : 'even' }),
      { pick: (b) => b.metadata?.labels },
    ),
  ),
  http('list', 'first page', 'GET', `${cms}?labelSelector=page%3Dyes&limit=2`, undefined, {
    pick: listPage,
    save: (b, t) => t.saved.set('continue', b.metadata?.continue ?? ''),
  }),
  http(
    'list',
    'second page',
    'GET',
    (t) => `${cms}?labelSelector=page%3Dyes&limit=2&continue=${encodeURIComponent(t.saved.get('continue') ?? '')}`,
    undefined,
    { pick: listPage },
  ),
  http('list', 'invalid continue token → BadRequest', 'GET', `${cms}?limit=2&continue=bm90LWEtdG9rZW4`),
  http(
    'list',
    'set-based label selector',
    'GET',
    `${cms}?labelSelector=${encodeURIComponent('parity in (odd),page')}`,
    undefined,
    { pick: names },
  ),
  http(
    'list',
    'label selector with !key',
    'GET',
    `${cms}?labelSelector=${encodeURIComponent('page,!parity')}`,
    undefined,
    { pick: names },
  ),
  http('list', 'invalid label selector → BadRequest', 'GET', `${cms}?labelSelector=${encodeURIComponent('a b c')}`),
  http('list', 'field selector metadata.name', 'GET', `${cms}?fieldSelector=metadata.name%3Dpage-3`, undefined, {
    pick: names,
  }),
  http('list', 'unsupported field selector → BadRequest', 'GET', `${cms}?fieldSelector=data.i%3D1`),
  http(
    'list',
    'list across namespaces with a selector',
    'GET',
    '/api/v1/configmaps?labelSelector=parity%3Deven',
    undefined,
    { pick: names },
  ),
  http(
    'list',
    'resourceVersionMatch without resourceVersion → Invalid',
    'GET',
    `${cms}?resourceVersionMatch=NotOlderThan`,
  ),
  http('watch', 'list for a watch', 'GET', `${cms}?labelSelector=watched%3Dyes`, undefined, {
    pick: names,
    save: (b, t) => t.saved.set('rv', b.metadata?.resourceVersion ?? ''),
  }),
  http('watch', 'create a watched object', 'POST', cms, cm('w1', { v: '1' }, { watched: 'yes' }), {
    pick: (b) => b.metadata?.name,
  }),
  http(
    'watch',
    'update it',
    'PATCH',
    `${cms}/w1`,
    { data: { v: '2' } },
    { contentType: 'application/merge-patch+json', pick: (b) => b.data },
  ),
  http(
    'watch',
    'take it out of the selector',
    'PATCH',
    `${cms}/w1`,
    { metadata: { labels: { watched: 'no' } } },
    { contentType: 'application/merge-patch+json', pick: (b) => b.metadata?.labels },
  ),
  http(
    'watch',
    'watch from the list resourceVersion',
    'GET',
    (t) => `${cms}?watch=true&labelSelector=watched%3Dyes&resourceVersion=${t.saved.get('rv')}&timeoutSeconds=1`,
    undefined,
    { pick: watchSummary },
  ),
  // which objects a watch from resourceVersion 1 replays, by name (the order of objects other components
  // created at start-up, like kube-root-ca.crt, is timing, not behaviour)
  http(
    'watch',
    'watch from resourceVersion 1 replays the history',
    'GET',
    `${cms}?watch=true&resourceVersion=1&timeoutSeconds=1`,
    undefined,
    { pick: (e) => (Array.isArray(e) ? [...new Set(watchSummary(e))].sort() : e) },
  ),
  http(
    'watch',
    'watch-list: initial events and the end bookmark',
    'GET',
    `${cms}?watch=true&labelSelector=page%3Dyes&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2`,
    undefined,
    {
      pick: (e) =>
        Array.isArray(e) ? watchSummary(e).filter((s: string) => !s.startsWith('BOOKMARK') || s.endsWith('true')) : e,
    },
  ),
  http(
    'watch',
    'sendInitialEvents without bookmarks → Invalid',
    'GET',
    `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
  ),
];

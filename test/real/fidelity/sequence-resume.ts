// The recorded sequence, part 5 (after the watch cache restarted, sequence-expiry.ts): how a client picks
// up where it left off. A paginated list's first page gives the resourceVersion a watch starts from (the
// informer's list-then-watch), and a watch with bookmarks resumes from the last bookmark it saw: each gets
// exactly the changes made after that point, nothing before it, nothing twice.
import { NS } from './sequence-core.ts';
import { http, type Step, type Target } from './steps.ts';

const cms = `/api/v1/namespaces/${NS}/configmaps`;
const SELECTOR = 'labelSelector=expiry%3Dyes';
const cm = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels: { expiry: 'yes' } },
  data: { v },
});
/** each change as type, name and value; bookmarks dropped (when they come is the server's choice) */
const changes = (e: any) =>
  Array.isArray(e)
    ? e
        .filter((x: any) => x.type !== 'BOOKMARK')
        .map((x: any) => `${x.type} ${x.object?.metadata?.name} ${x.object?.data?.v}`)
    : e;
const saved = (key: string) => (t: Target) => t.saved.get(key) ?? '';

export const resumeSteps: Step[] = [
  http('resume', 'first page of a paginated list', 'GET', `${cms}?${SELECTOR}&limit=1`, undefined, {
    pick: (b) => b.items?.map((i: any) => i.metadata?.name),
    save: (b, t) => t.saved.set('page-rv', b.metadata?.resourceVersion ?? ''),
  }),
  http('resume', 'update x2 after the page', 'PUT', `${cms}/x2`, cm('x2', '3'), { pick: (b) => b.data }),
  http(
    'resume',
    "watch from the first page's resourceVersion: only what changed since",
    'GET',
    (t) => `${cms}?watch=true&${SELECTOR}&resourceVersion=${saved('page-rv')(t)}&timeoutSeconds=1`,
    undefined,
    { pick: changes },
  ),
  http(
    'resume',
    'watch from 0 with bookmarks: the initial events end with a bookmark',
    'GET',
    `${cms}?watch=true&${SELECTOR}&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1`,
    undefined,
    {
      pick: changes,
      save: (b, t) =>
        t.saved.set(
          'bookmark-rv',
          (Array.isArray(b) ? b : []).filter((x: any) => x.type === 'BOOKMARK').at(-1)?.object?.metadata
            ?.resourceVersion ?? '',
        ),
    },
  ),
  http('resume', 'update x3 after the bookmark', 'PUT', `${cms}/x3`, cm('x3', '4'), { pick: (b) => b.data }),
  http('resume', 'create x4 after the bookmark', 'POST', cms, cm('x4', '1'), { pick: (b) => b.metadata?.name }),
  http(
    'resume',
    'resume from the bookmark: the two changes after it, once each',
    'GET',
    (t) =>
      `${cms}?watch=true&${SELECTOR}&resourceVersion=${saved('bookmark-rv')(t)}&allowWatchBookmarks=true&timeoutSeconds=1`,
    undefined,
    { pick: changes },
  ),
];

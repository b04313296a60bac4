// One row per resource for the terminal views (`modelplane dev`, `modelplane status`): identity, a one-word
// state, the reason, and a tone (ok / in progress / failing) that picks the symbol. Pure.
import type { KubeObject } from '@modelplane/runtime/meta';
import { kindRank } from './kinds.ts';
import { readinessOf } from './readiness.ts';

/** idle: cannot run on this cluster and nobody waits for it (a template for a GPU no node has) */
export type Tone = 'ok' | 'progress' | 'fail' | 'idle';

export interface ResourceRow {
  kind: string;
  group: string;
  namespace: string;
  name: string;
  state: string;
  reason: string;
  ready: boolean;
  tone: Tone;
  createdAt?: string;
}

const FAILING =
  /fail|error|invalid|degraded|crash|backoff|conflict|denied|forbidden|notfound|missing|notaccepted|rejected|notallowed/i;

export function toneOf(ready: boolean, state: string, reason: string, waiting = false): Tone {
  if (ready) return 'ok';
  if (state === 'NotAvailable') return 'idle';
  // a condition that is Unknown is not known yet (e.g. MetricsAvailable/MetricsMissing before the first scrape)
  if (waiting) return 'progress';
  return FAILING.test(state) || FAILING.test(reason) ? 'fail' : 'progress';
}

export function rowOf(obj: KubeObject): ResourceRow {
  const r = readinessOf(obj);
  const slash = obj.apiVersion.indexOf('/');
  return {
    kind: obj.kind,
    group: slash < 0 ? '' : obj.apiVersion.slice(0, slash),
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    state: r.status,
    reason: r.reason,
    ready: r.ready,
    tone: toneOf(r.ready, r.status, r.reason, r.waiting),
    ...(obj.metadata.creationTimestamp ? { createdAt: obj.metadata.creationTimestamp } : {}),
  };
}

/** a row for something the view expected but could not read (not created yet, or an error reading it) */
export function placeholderRow(
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
  state: string,
  reason: string,
): ResourceRow {
  const slash = ref.apiVersion.indexOf('/');
  return {
    kind: ref.kind,
    group: slash < 0 ? '' : ref.apiVersion.slice(0, slash),
    namespace: ref.namespace,
    name: ref.name,
    state,
    reason,
    ready: false,
    tone: toneOf(false, state, reason),
  };
}

export function rowKey(r: Pick<ResourceRow, 'group' | 'kind' | 'namespace' | 'name'>): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}`;
}

/**
 * failing rows pinned first (they must stay on screen when the table is cut), then primary kinds, then by
 * kind, namespace, name: a stable order so in-place redraws do not jump
 */
export function sortRows(rows: ResourceRow[]): ResourceRow[] {
  const pin = (r: ResourceRow) => (r.tone === 'fail' ? 0 : 1);
  return rows.sort(
    (a, b) =>
      pin(a) - pin(b) ||
      kindRank(a) - kindRank(b) ||
      a.kind.localeCompare(b.kind) ||
      a.namespace.localeCompare(b.namespace) ||
      a.name.localeCompare(b.name),
  );
}

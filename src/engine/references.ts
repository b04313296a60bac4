// The resolved-reference pattern and fetch gating (docs/controllers.md: "Resolved Reference Pattern").
//  - A reference is stored in status only while its target is Ready ("locked in").
//  - The next fetch uses the stored reference only if the target is still Ready; otherwise (not Ready,
//    deleted) it resolves again. Other fetch errors are returned as they are.
//  - Resolution always returns its best candidate, Ready or not, so health shows what is going on.
//  - Upstream objects needed only to create a downstream object are not fetched once it exists.

import { FetchResult } from './fetch-result.ts';

export interface ResolvedReference {
  name: string;
  namespace?: string;
  uid?: string;
  [field: string]: unknown;
}

export interface ResolveOptions<T> {
  /** the reference stored in status, if any */
  stored: ResolvedReference | undefined;
  fetchStored: (ref: ResolvedReference) => Promise<FetchResult<T>>;
  isReady: (value: T) => boolean;
  /** the normal resolution (search, select best); must return the best candidate even if not Ready */
  resolve: () => Promise<FetchResult<T>>;
  /** told why the stored reference was not used */
  onFallthrough?: (why: 'not-ready' | 'deleted' | 'uid-changed', ref: ResolvedReference) => void;
}

export async function resolveWithStoredReference<T extends { metadata?: { uid?: string } }>(
  opts: ResolveOptions<T>,
): Promise<FetchResult<T>> {
  const ref = opts.stored;
  if (ref) {
    const r = await opts.fetchStored(ref);
    if (r.ok()) {
      // a same-named object created after a delete is a different object: resolve it afresh
      if (ref.uid && r.value.metadata?.uid && r.value.metadata.uid !== ref.uid)
        opts.onFallthrough?.('uid-changed', ref);
      else if (opts.isReady(r.value)) return r;
      else opts.onFallthrough?.('not-ready', ref);
    } else if (r.isNotFound()) {
      opts.onFallthrough?.('deleted', ref);
    } else {
      return r;
    }
  }
  return opts.resolve();
}

/**
 * The reference to store: the resolved target when it is Ready, otherwise the previously stored one (do
 * not lock in something that may never become usable, and do not forget a good one because of a blip).
 */
export function lockedReference<T>(
  result: FetchResult<T> | undefined,
  isReady: (value: T) => boolean,
  toRef: (value: T) => ResolvedReference,
  previous: ResolvedReference | undefined,
): ResolvedReference | undefined {
  if (result?.ok() && isReady(result.value)) return toRef(result.value);
  return previous;
}

/** picks the best of several candidates: Ready ones first, then by `rank` (higher first), then by name */
export function bestCandidate<T extends { metadata?: { name?: string } }>(
  candidates: readonly T[],
  isReady: (value: T) => boolean,
  rank: (value: T) => number = () => 0,
): T | undefined {
  let best: T | undefined;
  for (const c of candidates) {
    if (!best) {
      best = c;
      continue;
    }
    const byReady = Number(isReady(c)) - Number(isReady(best));
    const byRank = rank(c) - rank(best);
    const byName = (best.metadata?.name ?? '') > (c.metadata?.name ?? '') ? 1 : -1;
    if (byReady > 0 || (byReady === 0 && (byRank > 0 || (byRank === 0 && byName > 0)))) best = c;
  }
  return best;
}

/**
 * Fetches an upstream object only while the downstream object it is needed for must be created: skipped
 * (undefined) when the downstream exists, and also when the downstream could not be read, since that
 * error already stops the apply and planning from stale upstream data would be wrong.
 */
export async function fetchUnlessDownstreamExists<U>(
  downstream: FetchResult<unknown>,
  fetchUpstream: () => Promise<FetchResult<U>>,
): Promise<FetchResult<U> | undefined> {
  if (downstream.ok()) return undefined;
  if (!downstream.isNotFound()) return undefined;
  return fetchUpstream();
}

/** a FetchResult from a candidate list: the best one, or a NotFound naming what was looked for */
export function fromCandidates<T extends { metadata?: { name?: string } }>(
  candidates: readonly T[],
  isReady: (v: T) => boolean,
  what: { kind: string; namespace?: string; name?: string },
  rank?: (v: T) => number,
): FetchResult<T> {
  const best = bestCandidate(candidates, isReady, rank);
  return best
    ? FetchResult.of(best, {
        kind: what.kind,
        ...(best.metadata?.name ? { name: best.metadata.name } : {}),
        ...(what.namespace ? { namespace: what.namespace } : {}),
      })
    : FetchResult.notFound<T>(what);
}

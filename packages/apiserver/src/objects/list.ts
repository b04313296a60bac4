// List with selectors and `limit`/`continue` pagination over a consistent snapshot: the first page of a
// paginated list pins the matching objects (stored objects are immutable, so this is references only),
// and continue tokens walk that snapshot until it expires, as etcd's compaction window would.
import { randomUUID } from 'node:crypto';
import { errors } from '../errors.ts';
import { goJsonSyntaxError } from '../http/go-json-error.ts';
import { objectKey } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';

interface Snapshot {
  items: KubeObject[];
  rv: number;
  expires: number;
}

interface ContinueToken {
  id: string;
  offset: number;
  /** the snapshot's resourceVersion; -1 for an inconsistent continuation (the current state after `after`) */
  rv: number;
  /** the storage key (namespace/name) of the last item already returned */
  after?: string;
}

const keyOf = (o: KubeObject) => objectKey(o.metadata.namespace, o.metadata.name ?? '');

const SNAPSHOT_TTL_MS = 5 * 60 * 1000;
/** kube-apiserver's words for a continue token whose revision etcd has compacted */
const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
const MAX_SNAPSHOTS = 1000;

export class ListPaginator {
  private readonly snapshots = new Map<string, Snapshot>();

  page(
    items: KubeObject[],
    rv: number,
    limit: number | undefined,
    continueToken: string | undefined,
  ): { items: KubeObject[]; rv: number; continue?: string; remaining?: number } {
    let all = items;
    let offset = 0;
    let snapRv = rv;
    let id: string | undefined;
    const tok = continueToken ? decodeToken(continueToken) : undefined;
    if (tok && tok.rv === -1) {
      // what kube offers once a snapshot is compacted away: the current objects after the last one returned
      const after = tok.after ?? '';
      all = items.filter((o) => keyOf(o) > after);
    } else if (tok) {
      const snap = this.snapshots.get(tok.id);
      if (!snap || snap.expires < Date.now()) {
        const gone = errors.gone(CONTINUE_EXPIRED);
        if (tok.after !== undefined) gone.continueToken = encodeToken({ id: '', offset: 0, rv: -1, after: tok.after });
        throw gone;
      }
      all = snap.items;
      offset = tok.offset;
      snapRv = snap.rv;
      id = tok.id;
    }
    if (!limit || limit <= 0 || offset + limit >= all.length) {
      if (id) this.snapshots.delete(id);
      return { items: all.slice(offset), rv: snapRv };
    }
    if (!id) {
      this.evict();
      id = randomUUID();
      this.snapshots.set(id, { items: all, rv: snapRv, expires: Date.now() + SNAPSHOT_TTL_MS });
    }
    const next = offset + limit;
    return {
      items: all.slice(offset, next),
      rv: snapRv,
      continue: encodeToken({ id, offset: next, rv: snapRv, after: keyOf(all[next - 1]!) }),
      remaining: all.length - next,
    };
  }

  /** whether a page for this token is cut from the current objects (no token, or an inconsistent one) */
  needsCurrentItems(continueToken: string | undefined): boolean {
    return !continueToken || decodeToken(continueToken).rv === -1;
  }

  /** fault injection and storage compaction: every outstanding continue token becomes too old */
  expireAll(): void {
    this.snapshots.clear();
  }

  private evict(): void {
    const now = Date.now();
    for (const [k, s] of this.snapshots) if (s.expires < now) this.snapshots.delete(k);
    while (this.snapshots.size >= MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value!);
  }
}

function encodeToken(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'modelplane.io/v1', ...t })).toString('base64url');
}

function decodeToken(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    if (
      typeof t.id !== 'string' ||
      typeof t.offset !== 'number' ||
      typeof t.rv !== 'number' ||
      (t.after !== undefined && typeof t.after !== 'string')
    )
      throw new Error('bad token');
    return t as ContinueToken;
  } catch {
    throw errors.badRequest(`invalid continue token: continue key is not valid: ${whyNotAToken(s)}`);
  }
}

/**
 * Why a continue token no server issued is refused, in the words kube-apiserver's storage uses for its own
 * tokens (base64url without padding, of JSON): the first byte base64 refuses, Go's JSON syntax error, or
 * that the server does not know the token's encoding.
 */
function whyNotAToken(s: string): string {
  const bad = s.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0 || s.length % 4 === 1) return `illegal base64 data at input byte ${bad >= 0 ? bad : s.length - 1}`;
  return goJsonSyntaxError(Buffer.from(s, 'base64url').toString('utf8')) ?? 'the token was not issued by this server';
}

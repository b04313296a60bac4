// WATCH: a chunked stream of newline-delimited events. Starts from the current state (resourceVersion
// unset or "0": synthetic ADDED events first) or resumes after a given resourceVersion (410 Expired as
// an ERROR event when it is older than the retained history). Objects moving out of a selector are sent
// as DELETED and into it as ADDED. Bookmarks on request, `timeoutSeconds`, and fault hooks to close or
// stall every open watch.
import type { StoredEvent } from '../storage/store.ts';
import { ApiError, errors } from '../errors.ts';
import { objectJson } from '../http/object-json.ts';
import type { KubeObject, WatchEventType } from '../types.ts';
import { boolParam, intParam, rvParam } from './params.ts';
import { type ResourceRequest, namespaceOf } from './resources.ts';
import { compileSelectors } from './selectors.ts';
import { negotiateShape, partialMetadata, tableColumns, tableRow } from './table.ts';

/** Open watches, so fault injection can close or stall them all. */
export class WatchRegistry {
  readonly open = new Set<OpenWatch>();
  stalled = false;

  /** drops every watch connection abruptly (as a crashed server or a broken network would) */
  closeAll(): void {
    for (const w of [...this.open]) w.abort();
  }

  /** ends every watch cleanly (as kube-apiserver does when a watch reaches its timeout) */
  endAll(): void {
    for (const w of [...this.open]) w.end();
  }
}

export interface OpenWatch {
  abort(): void;
  end(): void;
  user: string;
  resource: string;
}

export function handleWatch(r: ResourceRequest, watches: WatchRegistry): Promise<number> {
  const { core, rt, res, query } = r;
  const ns = namespaceOf(r);
  const matches = compileSelectors(rt, r.info.version, query);
  const fromRv = rvParam(query);
  const bookmarks = boolParam(query, 'allowWatchBookmarks');
  const sendInitial = query.get('sendInitialEvents') === 'true' || fromRv === undefined || fromRv === 0;
  const timeoutSeconds = intParam(query, 'timeoutSeconds') ?? 1800 + Math.floor(Math.random() * 1800);
  const shape = negotiateShape(r.req.headers.accept);
  let firstTable = true;

  const encode = (type: WatchEventType, obj: unknown): string => {
    let object = obj;
    if (type !== 'ERROR' && type !== 'BOOKMARK') {
      const o = obj as KubeObject;
      // the object's text is shared by every watcher (and list) that sends it: JSON.stringify({ type, object })
      if (shape !== 'table' && shape !== 'partial') return `{"type":${JSON.stringify(type)},"object":${objectJson(o)}}\n`;
      if (shape === 'table') {
        object = {
          kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: o.metadata.resourceVersion },
          columnDefinitions: firstTable ? tableColumns(rt, r.info.version) : [],
          rows: [tableRow(rt, r.info.version, o, (query.get('includeObject') ?? 'Metadata') as 'Metadata')],
        };
        firstTable = false;
      } else if (shape === 'partial') {
        object = partialMetadata(o);
      }
    }
    return `${JSON.stringify({ type, object })}\n`;
  };

  return new Promise((resolve) => {
    let done = false;
    let unsubscribe: (() => void) | undefined;
    const timers: NodeJS.Timeout[] = [];
    const finish = (graceful: boolean) => {
      if (done) return;
      done = true;
      unsubscribe?.();
      for (const t of timers) clearTimeout(t);
      watches.open.delete(handle);
      if (graceful) res.end();
      else res.destroy();
      resolve(200);
    };
    const handle: OpenWatch = { abort: () => finish(false), end: () => finish(true), user: r.user.username, resource: rt.plural };
    watches.open.add(handle);
    res.on('close', () => finish(false));

    const send = (type: WatchEventType, obj: unknown) => {
      if (done || watches.stalled) return;
      res.write(encode(type, obj));
    };

    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    // Flush headers at once: clients wait for them before they consider the watch established.
    res.flushHeaders();

    // Events leave in commit order even when a conversion webhook makes some of them wait: while one is
    // being converted, later ones (and bookmarks) queue behind it. Without a webhook nothing queues.
    let tail: Promise<void> | undefined;
    const inOrder = (task: () => void | Promise<void>) => {
      if (done) return;
      const ran = tail ? tail.then(() => (done ? undefined : task())) : task();
      if (!ran) return;
      const next: Promise<void> = ran.catch(() => finish(true)).then(() => {
        if (tail === next) tail = undefined;
      });
      tail = next;
    };
    /** converts objects to the watch's version, synchronously when no webhook is involved */
    const converted = (objs: KubeObject[], then: (out: KubeObject[]) => void): void | Promise<void> => {
      // a CRD update may have changed its conversion webhook since the watch began
      const current = core.registry.byResource(rt.group, rt.plural) ?? rt;
      const out = objs.map((o) => core.convertOutSync(current, o, r.info.version));
      if (out.every((o) => o !== undefined)) return then(out as KubeObject[]);
      return core.convertOutMany(current, objs, r.info.version).then(then);
    };
    // selectors may see a different object before and after a write; without any, only existence matters
    const selective = Boolean(query.get('labelSelector') || query.get('fieldSelector'));

    const emit = (e: StoredEvent, obj: KubeObject, prev: KubeObject | undefined) => {
      const now = e.type !== 'DELETED' && matches(obj);
      const before = e.prev ? (prev ? matches(prev) : true) : false;
      if (e.type === 'ADDED') {
        if (now) send('ADDED', obj);
      } else if (e.type === 'DELETED') {
        if (matches(obj)) send('DELETED', obj);
      } else if (now && before) send('MODIFIED', obj);
      else if (now && !before) send('ADDED', obj);
      else if (!now && before) send('DELETED', obj);
    };
    const deliver = (e: StoredEvent) => {
      if (ns && e.object.metadata.namespace !== ns) return;
      const objs = e.prev && selective ? [e.object, e.prev] : [e.object];
      inOrder(() => converted(objs, ([obj, prev]) => emit(e, obj!, prev)));
    };

    try {
      let startRv: number;
      if (sendInitial && (fromRv === undefined || fromRv === 0)) {
        startRv = core.store.currentRv();
        const initial = core.store.list(rt.storageKey, ns);
        inOrder(() => converted(initial, (objs) => {
          for (const obj of objs) if (matches(obj)) send('ADDED', obj);
        }));
        if (bookmarks && query.get('sendInitialEvents') === 'true') {
          const rv = startRv;
          inOrder(() => send('BOOKMARK', bookmarkObject(rt.kind, r.rt.group, r.info.version, rv, true)));
        }
      } else {
        startRv = fromRv!;
      }
      unsubscribe = core.store.watch(rt.storageKey, startRv, deliver);
    } catch (e) {
      const err = e instanceof ApiError ? e : errors.internal(String(e));
      res.write(encode('ERROR', err.toStatus()));
      finish(true);
      return;
    }

    timers.push(setTimeout(() => finish(true), timeoutSeconds * 1000));
    if (bookmarks) {
      timers.push(setInterval(() => {
        // the RV when queued: every event up to it is already ahead in the queue
        const rv = core.store.currentRv();
        inOrder(() => send('BOOKMARK', bookmarkObject(rt.kind, rt.group, r.info.version, rv, false)));
      }, core.bookmarkIntervalMs));
    }
  });
}

function bookmarkObject(kind: string, group: string, version: string, rv: number, initialEnd: boolean): Record<string, unknown> {
  return {
    kind,
    apiVersion: group ? `${group}/${version}` : version,
    metadata: { resourceVersion: String(rv), ...(initialEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
  };
}

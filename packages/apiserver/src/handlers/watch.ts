// WATCH: a chunked stream of events, newline-delimited JSON or length-prefixed protobuf frames. Starts from
// the current state (resourceVersion unset or "0": synthetic ADDED events first, unless sendInitialEvents=false)
// or resumes after a given resourceVersion (410 Expired as an ERROR event when it is older than the retained
// history). Objects moving out of a selector are sent as DELETED and into it as ADDED. Bookmarks on request,
// `timeoutSeconds`, and fault hooks to close, end or stall every open watch.
import type { StoredEvent } from '../storage/store.ts';
import { ApiError, errors } from '../errors.ts';
import { negotiateOutput } from '../http/negotiate.ts';
import { objectJson } from '../http/object-json.ts';
import { encodeWatchFrame } from '../http/protobuf/encode.ts';
import type { KubeObject, WatchEventType } from '../types.ts';
import { decodeListOptions, rvParam, validateListOptions } from './params.ts';
import { type ResourceRequest, namespaceOf } from './request.ts';
import { endpointCapabilities } from './route.ts';
import { compileSelectors } from './selectors.ts';
import { includeObjectParam, partialMetadata, tableColumns, tableRow } from './table.ts';
import type { OpenWatch, WatchRegistry } from './watch-registry.ts';

export { WatchRegistry } from './watch-registry.ts';

/** kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts 1800-3600 s */
const MIN_REQUEST_TIMEOUT_S = 1800;

export function handleWatch(r: ResourceRequest, watches: WatchRegistry): Promise<number> {
  const { core, rt, res, query } = r;
  const ns = namespaceOf(r);
  const opts = decodeListOptions(query);
  const nameMatches = compileSelectors(rt, r.info.version, query);
  validateListOptions(query, opts, true);
  // the deprecated `/watch/…/{name}` path watches one object
  const name = r.info.watchPath ? r.info.name : undefined;
  const matches = name === undefined ? nameMatches : (o: KubeObject) => o.metadata.name === name && nameMatches(o);
  const fromRv = rvParam(query);
  const bookmarks = opts.allowWatchBookmarks;
  const sendInitial = opts.sendInitialEvents ?? (fromRv === undefined || fromRv === 0);
  const timeoutSeconds = opts.timeoutSeconds || MIN_REQUEST_TIMEOUT_S + Math.floor(Math.random() * MIN_REQUEST_TIMEOUT_S);
  // the stream encoding: a YAML winner has none (406); Table and metadata-only views as negotiated
  const out = negotiateOutput(r.req.headers.accept, endpointCapabilities(rt, r.info.version), { stream: true });
  const include = out.convert === 'Table' ? includeObjectParam(r) : 'Metadata';
  const protobuf = out.format === 'protobuf';
  let firstTable = true;

  const encode = (type: WatchEventType, obj: unknown): string | Buffer => {
    let object = obj as Record<string, unknown>;
    if (type !== 'ERROR' && type !== 'BOOKMARK') {
      const o = obj as KubeObject;
      // the object's text is shared by every watcher (and list) that sends it: JSON.stringify({ type, object })
      if (!out.convert && !protobuf) return `{"type":${JSON.stringify(type)},"object":${objectJson(o)}}\n`;
      if (out.convert === 'Table') {
        object = {
          kind: 'Table', apiVersion: `meta.k8s.io/${out.convertVersion}`, metadata: { resourceVersion: o.metadata.resourceVersion },
          columnDefinitions: firstTable ? tableColumns(rt, r.info.version) : [],
          rows: [tableRow(rt, r.info.version, o, include)],
        };
        firstTable = false;
      } else if (out.convert) object = partialMetadata(o, out.convertVersion);
    }
    return protobuf ? encodeWatchFrame(type, object) : `${JSON.stringify({ type, object })}\n`;
  };

  return new Promise((resolve) => {
    let done = false;
    let unsubscribe: (() => void) | undefined;
    const timers: NodeJS.Timeout[] = [];
    // events held while fault injection stalls the stream, delivered in order when it resumes
    const held: (string | Buffer)[] = [];
    let endWhenDelivered = false;
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
    const deliverHeld = () => {
      if (done) return;
      for (const chunk of held.splice(0)) res.write(chunk);
      if (endWhenDelivered) finish(true);
    };
    const handle: OpenWatch = {
      abort: () => finish(false),
      // a stalled connection with events still held cannot end cleanly: it drops, as a dead TCP peer would
      end: () => (held.length ? finish(false) : finish(true)),
      resume: deliverHeld,
      user: r.user.username,
      resource: rt.plural,
    };
    watches.open.add(handle);
    res.on('close', () => finish(false));

    const send = (type: WatchEventType, obj: unknown) => {
      if (done) return;
      const chunk = encode(type, obj);
      if (watches.stalled || held.length) held.push(chunk);
      else res.write(chunk);
    };

    res.writeHead(200, {
      'Content-Type': protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
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
      const objs = e.prev && (selective || name !== undefined) ? [e.object, e.prev] : [e.object];
      inOrder(() => converted(objs, ([obj, prev]) => emit(e, obj!, prev)));
    };

    try {
      let startRv: number;
      // sendInitialEvents=true is the current state whatever the resourceVersion (it only bounds how old it
      // may be); without it, resourceVersion unset or "0" starts with the state and any other resumes after it
      if (sendInitial && (opts.sendInitialEvents === true || fromRv === undefined || fromRv === 0)) {
        startRv = core.store.currentRv();
        const initial = core.store.list(rt.storageKey, ns);
        inOrder(() => converted(initial, (objs) => {
          for (const obj of objs) if (matches(obj)) send('ADDED', obj);
        }));
        if (bookmarks && opts.sendInitialEvents === true) {
          const rv = startRv;
          inOrder(() => send('BOOKMARK', bookmarkObject(rt.kind, rt.group, r.info.version, rv, true)));
        }
      } else startRv = fromRv ?? core.store.currentRv();
      unsubscribe = core.store.watch(rt.storageKey, startRv, deliver);
    } catch (e) {
      const err = e instanceof ApiError ? e : errors.internal(String(e));
      res.write(encode('ERROR', err.toStatus()));
      finish(true);
      return;
    }

    timers.push(setTimeout(() => {
      // a stalled stream ends once what it holds is delivered
      if (held.length) endWhenDelivered = true;
      else finish(true);
    }, Math.max(timeoutSeconds, 0) * 1000));
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

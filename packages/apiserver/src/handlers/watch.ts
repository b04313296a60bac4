// WATCH: a chunked stream of events, newline-delimited JSON or length-prefixed protobuf frames. Starts from
// the current state (resourceVersion unset or "0": synthetic ADDED events first, unless sendInitialEvents=false)
// or resumes after a given resourceVersion (410 Expired as an ERROR event when it is older than the retained
// history). Objects moving out of a selector are sent as DELETED and into it as ADDED. Bookmarks on request,
// `timeoutSeconds`, and fault hooks to close, end or stall every open watch.

import { errors, StatusError } from '../errors.ts';
import { type Negotiated, negotiateOutput } from '../http/negotiate.ts';
import { watchEventJson } from '../http/object-json.ts';
import { encodeWatchFrame } from '../http/protobuf/encode.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { StoredEvent } from '../storage/store.ts';
import type { KubeObject, WatchEventType } from '../types.ts';
import { decodeListOptions, rvParam, validateListOptions } from './params.ts';
import { namespaceOf, type ResourceRequest } from './request.ts';
import { endpointCapabilities } from './route.ts';
import { compileSelectors } from './selectors.ts';
import { type IncludeObject, includeObjectParam, partialMetadata, tableColumns, tableRow } from './table.ts';
import type { OpenWatch, WatchRegistry } from './watch-registry.ts';

export { WatchRegistry } from './watch-registry.ts';

/** kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts 1800-3600 s */
const MIN_REQUEST_TIMEOUT_S = 1800;

/** What a watch request asks for, decoded and validated before the stream opens. */
interface WatchSpec {
  ns: string | undefined;
  /** the deprecated `/watch/…/{name}` path watches one object */
  name: string | undefined;
  matches: (o: KubeObject) => boolean;
  /** selectors may see a different object before and after a write; without any, only existence matters */
  selective: boolean;
  fromRv: number | undefined;
  bookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  sendInitial: boolean;
  timeoutSeconds: number;
  out: Negotiated;
  include: IncludeObject;
}

function watchSpec(r: ResourceRequest): WatchSpec {
  const { rt, query } = r;
  const opts = decodeListOptions(query);
  const nameMatches = compileSelectors(rt, r.info.version, query);
  validateListOptions(query, opts, true);
  const name = r.info.watchPath ? r.info.name : undefined;
  const fromRv = rvParam(query);
  // the stream encoding: a YAML winner has none (406); Table and metadata-only views as negotiated
  const out = negotiateOutput(r.req.headers.accept, endpointCapabilities(rt, r.info.version), { stream: true });
  return {
    ns: namespaceOf(r),
    name,
    matches: name === undefined ? nameMatches : (o: KubeObject) => o.metadata.name === name && nameMatches(o),
    selective: Boolean(query.get('labelSelector') || query.get('fieldSelector')),
    fromRv,
    bookmarks: Boolean(opts.allowWatchBookmarks),
    sendInitialEvents: opts.sendInitialEvents,
    sendInitial: opts.sendInitialEvents ?? (fromRv === undefined || fromRv === 0),
    timeoutSeconds: opts.timeoutSeconds || MIN_REQUEST_TIMEOUT_S + Math.floor(Math.random() * MIN_REQUEST_TIMEOUT_S),
    out,
    include: out.convert === 'Table' ? includeObjectParam(r) : 'Metadata',
  };
}

export function handleWatch(r: ResourceRequest, watches: WatchRegistry): Promise<number> {
  const spec = watchSpec(r);
  return new Promise((resolve) => new WatchStream(r, watches, spec, resolve).start());
}

/** One open watch: its encoding, the order events leave in, stalls, bookmarks and its end. */
class WatchStream {
  private done = false;
  private unsubscribe: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  /** events held while fault injection stalls the stream, delivered in order when it resumes */
  private readonly held: (string | Buffer)[] = [];
  private endWhenDelivered = false;
  private firstTable = true;
  private tail: Promise<void> | undefined;
  private readonly protobuf: boolean;
  private readonly handle: OpenWatch;

  constructor(
    private readonly r: ResourceRequest,
    private readonly watches: WatchRegistry,
    private readonly spec: WatchSpec,
    private readonly resolve: (code: number) => void,
  ) {
    this.protobuf = spec.out.format === 'protobuf';
    this.handle = {
      abort: () => this.finish(false),
      // a stalled connection with events still held cannot end cleanly: it drops, as a dead TCP peer would
      end: () => (this.held.length ? this.finish(false) : this.finish(true)),
      resume: () => this.deliverHeld(),
      user: r.user.username,
      resource: r.rt.plural,
    };
  }

  start(): void {
    const { res } = this.r;
    this.watches.open.add(this.handle);
    res.on('close', () => this.finish(false));
    res.writeHead(200, {
      'Content-Type': this.protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    // Flush headers at once: clients wait for them before they consider the watch established.
    res.flushHeaders();
    try {
      this.subscribe();
    } catch (e) {
      const err = e instanceof StatusError ? e : errors.internal(String(e));
      res.write(this.encode('ERROR', err.toStatus()));
      this.finish(true);
      return;
    }
    this.startTimers();
  }

  /**
   * sendInitialEvents=true is the current state whatever the resourceVersion (it only bounds how old it may
   * be); without it, resourceVersion unset or "0" starts with the state and any other resumes after it
   */
  private subscribe(): void {
    const { core, rt } = this.r;
    const { spec } = this;
    let startRv: number;
    if (spec.sendInitial && (spec.sendInitialEvents === true || spec.fromRv === undefined || spec.fromRv === 0)) {
      startRv = core.store.currentRv();
      const initial = core.store.list(rt.storageKey, spec.ns);
      this.inOrder(() =>
        this.converted(initial, (objs) => {
          for (const obj of objs) if (spec.matches(obj)) this.send('ADDED', obj);
        }),
      );
      // kube 1.32 ends the initial events with a bookmark whenever bookmarks are allowed, a legacy watch
      // from "0" or unset included
      if (spec.bookmarks) {
        const rv = startRv;
        this.inOrder(() => this.send('BOOKMARK', bookmarkObject(rt, this.r.info.version, rv, true)));
      }
    } else startRv = spec.fromRv ?? core.store.currentRv();
    this.unsubscribe = core.store.watch(rt.storageKey, startRv, (e) => this.deliver(e));
  }

  private startTimers(): void {
    const { core, rt } = this.r;
    this.timers.push(
      setTimeout(() => {
        // a stalled stream ends once what it holds is delivered
        if (this.held.length) this.endWhenDelivered = true;
        else this.finish(true);
      }, Math.max(this.spec.timeoutSeconds, 0) * 1000),
    );
    if (!this.spec.bookmarks) return;
    this.timers.push(
      setInterval(() => {
        // the RV when queued: every event up to it is already ahead in the queue
        const rv = core.store.currentRv();
        this.inOrder(() => this.send('BOOKMARK', bookmarkObject(rt, this.r.info.version, rv, false)));
      }, core.bookmarkIntervalMs),
    );
  }

  private finish(graceful: boolean): void {
    if (this.done) return;
    this.done = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearTimeout(t);
    this.watches.open.delete(this.handle);
    if (graceful) this.r.res.end();
    else this.r.res.destroy();
    this.resolve(200);
  }

  private deliverHeld(): void {
    if (this.done) return;
    for (const chunk of this.held.splice(0)) this.r.res.write(chunk);
    if (this.endWhenDelivered) this.finish(true);
  }

  private send(type: WatchEventType, obj: unknown): void {
    if (this.done) return;
    const chunk = this.encode(type, obj);
    if (this.watches.stalled || this.held.length) this.held.push(chunk);
    else this.r.res.write(chunk);
  }

  private encode(type: WatchEventType, obj: unknown): string | Buffer {
    const { out } = this.spec;
    let object = obj as Record<string, unknown>;
    if (type !== 'ERROR' && type !== 'BOOKMARK') {
      const o = obj as KubeObject;
      // the event's bytes are shared by every watcher that sends it: JSON.stringify({ type, object })
      if (!out.convert && !this.protobuf) return watchEventJson(type, o);
      if (out.convert === 'Table') {
        const { rt, info } = this.r;
        object = {
          kind: 'Table',
          apiVersion: `meta.k8s.io/${out.convertVersion}`,
          metadata: { resourceVersion: o.metadata.resourceVersion },
          columnDefinitions: this.firstTable ? tableColumns(rt, info.version) : [],
          rows: [tableRow(rt, info.version, o, this.spec.include)],
        };
        this.firstTable = false;
      } else if (out.convert) object = partialMetadata(o, out.convertVersion);
    }
    return this.protobuf ? encodeWatchFrame(type, object) : `${JSON.stringify({ type, object })}\n`;
  }

  /**
   * Events leave in commit order even when a conversion webhook makes some of them wait: while one is being
   * converted, later ones (and bookmarks) queue behind it. Without a webhook nothing queues.
   */
  private inOrder(task: () => void | Promise<void>): void {
    if (this.done) return;
    const ran = this.tail ? this.tail.then(() => (this.done ? undefined : task())) : task();
    if (!ran) return;
    const next: Promise<void> = ran
      .catch(() => this.finish(true))
      .then(() => {
        if (this.tail === next) this.tail = undefined;
      });
    this.tail = next;
  }

  /** converts objects to the watch's version, synchronously when no webhook is involved */
  private converted(objs: KubeObject[], then: (out: KubeObject[]) => void): void | Promise<void> {
    const { core, rt, info } = this.r;
    // a CRD update may have changed its conversion webhook since the watch began
    const current = core.registry.byResource(rt.group, rt.plural) ?? rt;
    const out = objs.map((o) => core.convertOutSync(current, o, info.version));
    if (out.every((o) => o !== undefined)) return then(out as KubeObject[]);
    return core.convertOutMany(current, objs, info.version).then(then);
  }

  private deliver(e: StoredEvent): void {
    const { spec } = this;
    if (spec.ns && e.object.metadata.namespace !== spec.ns) return;
    const objs = e.prev && (spec.selective || spec.name !== undefined) ? [e.object, e.prev] : [e.object];
    this.inOrder(() => this.converted(objs, ([obj, prev]) => this.emit(e, obj!, prev)));
  }

  /** Objects moving out of the selector leave as DELETED and into it arrive as ADDED. */
  private emit(e: StoredEvent, obj: KubeObject, prev: KubeObject | undefined): void {
    const { matches } = this.spec;
    const now = e.type !== 'DELETED' && matches(obj);
    const before = e.prev ? (prev ? matches(prev) : true) : false;
    if (e.type === 'ADDED') {
      if (now) this.send('ADDED', obj);
    } else if (e.type === 'DELETED') {
      if (matches(obj)) this.send('DELETED', obj);
    } else if (now && before) this.send('MODIFIED', obj);
    else if (now && !before) this.send('ADDED', obj);
    else if (!now && before) this.send('DELETED', obj);
  }
}

/**
 * A bookmark as kube writes it: an empty object of the kind with the resourceVersion (a built-in's Go struct
 * also carries `creationTimestamp: null`). The one ending the initial events is annotated, with the list it
 * belongs to as a blueprint (the empty list, JSON-encoded, base64) for clients that build a list from a watch.
 */
function bookmarkObject(rt: ResourceType, version: string, rv: number, initialEnd: boolean): Record<string, unknown> {
  const apiVersion = rt.group ? `${rt.group}/${version}` : version;
  // a built-in list is a Go struct (field order, nil items); a custom resource's an unstructured map (sorted keys)
  const list = rt.builtin
    ? { kind: rt.listKind, apiVersion, metadata: {}, items: null }
    : { apiVersion, items: [], kind: rt.listKind };
  const blueprint = `${JSON.stringify(list)}\n`;
  return {
    kind: rt.kind,
    apiVersion,
    metadata: {
      resourceVersion: String(rv),
      ...(rt.builtin ? { creationTimestamp: null } : {}),
      ...(initialEnd
        ? {
            annotations: {
              'k8s.io/initial-events-end': 'true',
              'kubernetes.io/initial-events-list-blueprint': Buffer.from(blueprint).toString('base64'),
            },
          }
        : {}),
    },
  };
}

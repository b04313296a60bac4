// The server's shared state, assembled once: store, registry, write lifecycle, and the pluggable parts
// (admission, conversion, logs) that later layers replace. Handlers receive this and nothing else.
import { eventToEventsV1 } from './builtin/events.ts';
import { OpenApiCache } from './handlers/openapi.ts';
import { ListPaginator } from './objects/list.ts';
import { type AdmissionChain, noAdmission } from './objects/hooks.ts';
import { Lifecycle } from './objects/lifecycle.ts';
import type { StrategyProvider } from './objects/strategy.ts';
import { Registry } from './registry/registry.ts';
import type { ResourceType } from './registry/resource-type.ts';
import { groupVersion, storageVersion } from './registry/resource-type.ts';
import { ObjectStore } from './storage/store.ts';
import { createStrategyProvider } from './strategies/index.ts';
import type { KubeObject, ManagedFieldsEntry } from './types.ts';
import type { RequestContext } from './objects/context.ts';
import type { Deleter } from './objects/deleter.ts';
import { recordUpdate } from './patch/index.ts';

/** Supplies container logs for the pods/log subresource (the simulated kubelet registers one). */
export type LogProvider = (namespace: string, pod: string, container: string | undefined) => string | undefined;

export interface CoreOptions {
  historyLimit?: number;
  /** seconds between watch bookmarks when a client asks for them */
  bookmarkIntervalMs?: number;
}

export class ServerCore {
  readonly store: ObjectStore;
  readonly registry = new Registry();
  readonly strategies: StrategyProvider;
  readonly lifecycle: Lifecycle;
  readonly paginator = new ListPaginator();
  readonly openapi: OpenApiCache;
  admission: AdmissionChain = noAdmission;
  logProvider: LogProvider | undefined;
  readonly bookmarkIntervalMs: number;
  readonly deletedListeners = new Set<(rt: ResourceType, obj: KubeObject) => void>();
  /** set by the server assembly (it needs the admission chain, which is replaceable) */
  deleter!: Deleter;

  constructor(opts: CoreOptions = {}) {
    this.store = new ObjectStore(opts.historyLimit);
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 10_000;
    this.strategies = createStrategyProvider();
    this.openapi = new OpenApiCache(this.registry);
    this.lifecycle = new Lifecycle({
      store: this.store,
      strategies: this.strategies,
      admission: () => this.admission,
      namespaceExists: (ns) => this.namespaceExists(ns),
      onDeleted: (rt, obj) => this.notifyDeleted(rt, obj),
      durable: () => this.durable(),
    });
  }

  /** replaced by persistence with its flush(); in memory every commit is final at once */
  durable: () => Promise<void> = () => Promise.resolve();

  notifyDeleted(rt: ResourceType, obj: KubeObject): void {
    for (const l of this.deletedListeners) l(rt, obj);
  }

  /** Records ownership for non-apply writes (create/update/patch) under the request's field manager. */
  managedFieldsRecorder(rt: ResourceType, version: string, ctx: RequestContext, subresource: string | undefined) {
    const manager = ctx.fieldManager ?? 'unknown';
    const schema = this.strategies.for(rt).patchSchema(version);
    return (oldObj: KubeObject | undefined, newObj: KubeObject) =>
      recordUpdate({
        oldObj, newObj, manager, operation: 'Update', schema, now: new Date(), apiVersion: groupVersion(rt.group, version),
        statusSubresource: rt.subresources.status, ...(subresource ? { subresource } : {}),
      }) as ManagedFieldsEntry[];
  }

  namespaceExists(ns: string): boolean {
    return this.store.get('/namespaces', undefined, ns) !== undefined;
  }

  /** The stored object as seen in `version` (conversion strategy None: only apiVersion changes). */
  convertOut(rt: ResourceType, obj: KubeObject, version: string): KubeObject {
    const gv = groupVersion(rt.group, version);
    let out = obj;
    if (obj.apiVersion !== gv) out = { ...obj, apiVersion: gv };
    if (rt.storageKey === 'events' && rt.group === 'events.k8s.io') out = eventToEventsV1(out);
    return out;
  }


  storageVersionOf(rt: ResourceType): string {
    return storageVersion(rt);
  }
}

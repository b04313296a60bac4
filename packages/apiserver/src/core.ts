// The server's shared state, built once from what the assembly passes in: store, registry, write lifecycle,
// admission (webhooks after the built-in plugins), conversion, deletion, pod logs. Handlers receive this and
// nothing else; nothing in it is replaced after construction.

import { ServiceEndpoints } from './admission/service-endpoints.ts';
import { WebhookAdmission } from './admission/webhook-admission.ts';
import { eventToEventsV1 } from './builtin/events.ts';
import { ObjectConverter } from './conversion/converter.ts';
import { OpenApiCache } from './handlers/openapi.ts';
import type { RequestContext } from './objects/context.ts';
import { Deleter, type DeleterDeps } from './objects/deleter.ts';
import type { AdmissionAttributes, AdmissionChain } from './objects/hooks.ts';
import { ListPaginator } from './objects/list.ts';
import type { StrategyProvider } from './objects/strategy.ts';
import { Lifecycle } from './objects/write-path.ts';
import { recordUpdate } from './patch/index.ts';
import { Registry } from './resource-types/resource-registry.ts';
import type { ResourceType } from './resource-types/resource-type.ts';
import { groupVersion, storageVersion } from './resource-types/resource-type.ts';
import { ObjectStore } from './storage/store.ts';
import { createStrategyProvider } from './strategies/index.ts';
import type { KubeObject, ManagedFieldsEntry } from './types.ts';

/**
 * Supplies container logs for the pods/log subresource, playing the kubelet (the simulated kubelet registers
 * one): the container's current run, or with `previous` its last terminated run, cut to the last `tailLines`
 * lines and then `limitBytes` bytes; undefined when there is no such run.
 */
export type LogProvider = (namespace: string, pod: string, container: string, opts: LogOptions) => string | undefined;

/** the pods/log query parameters kube-apiserver passes on to the kubelet */
export interface LogOptions {
  previous: boolean;
  tailLines: number | undefined;
  limitBytes: number | undefined;
}

export interface CoreOptions {
  /** the object store (the assembly loads persisted objects into it first); a fresh one when absent */
  store?: ObjectStore;
  historyLimit?: number;
  /** seconds between watch bookmarks when a client asks for them */
  bookmarkIntervalMs?: number;
  /** container logs for pods/log; without one the subresource answers as for a pod with no logs */
  podLogs?: LogProvider;
  /** where webhook `service` references lead; the caller may keep registering into it after start */
  serviceEndpoints?: ServiceEndpoints;
  /** resolves once committed writes are durable (persistence's flush); in memory every commit is final */
  durable?: () => Promise<void>;
  /** built-in validating admission plugins, run on every write before the validating webhooks */
  admissionPlugins?: AdmissionPlugin[];
  /** the default propagation policy of deletes that name none (the garbage collector's rule) */
  defaultPropagationPolicy?: DeleterDeps['defaultPolicy'];
  /** where the server reports what it would log (e.g. a webhook failing open); default console.warn */
  warn?: (message: string) => void;
  /** wraps the webhook admission chain (tests put a refusing step in front of it) */
  wrapAdmission?: (webhooks: AdmissionChain) => AdmissionChain;
}

/** a built-in validating admission plugin: throws an StatusError to refuse the write */
export type AdmissionPlugin = (attrs: AdmissionAttributes) => void;

export class ServerCore {
  readonly store: ObjectStore;
  readonly registry = new Registry();
  readonly strategies: StrategyProvider;
  readonly lifecycle: Lifecycle;
  readonly paginator = new ListPaginator();
  readonly openapi: OpenApiCache;
  /**
   * Where webhook `service` references lead (`ns/name:port` → `https://127.0.0.1:PORT`); `modelplane dev`
   * registers its webhook server here. See admission/service-endpoints.ts.
   */
  readonly serviceEndpoints: ServiceEndpoints;
  /** CRD conversion (None and Webhook strategies) */
  readonly converter: ObjectConverter;
  /** admission webhooks from Mutating/ValidatingWebhookConfiguration objects */
  readonly admission: AdmissionChain;
  readonly logProvider: LogProvider | undefined;
  readonly bookmarkIntervalMs: number;
  readonly deletedListeners = new Set<(rt: ResourceType, obj: KubeObject) => void>();
  readonly deleter: Deleter;
  /** built-in validating admission plugins, run on every write before the validating webhooks */
  readonly admissionPlugins: readonly AdmissionPlugin[];
  readonly durable: () => Promise<void>;

  constructor(opts: CoreOptions = {}) {
    this.store = opts.store ?? new ObjectStore(opts.historyLimit);
    this.serviceEndpoints = opts.serviceEndpoints ?? new ServiceEndpoints();
    this.logProvider = opts.podLogs;
    this.durable = opts.durable ?? (() => Promise.resolve());
    this.admissionPlugins = opts.admissionPlugins ?? [];
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 10_000;
    this.strategies = createStrategyProvider();
    this.openapi = new OpenApiCache(this.registry);
    const resolveDeps = {
      endpoints: this.serviceEndpoints,
      serviceExists: (ns: string, name: string) => this.store.get('/services', ns, name) !== undefined,
    };
    this.converter = new ObjectConverter(resolveDeps);
    const convert = (rt: ResourceType, objs: KubeObject[], v: string) => this.converter.convert(rt, objs, v);
    const webhooks = new WebhookAdmission({
      store: this.store,
      serviceEndpoints: this.serviceEndpoints,
      convert,
      ...(opts.warn ? { warn: opts.warn } : {}),
    });
    this.admission = opts.wrapAdmission ? opts.wrapAdmission(webhooks) : webhooks;
    const onDeleted = (rt: ResourceType, obj: KubeObject) => this.notifyDeleted(rt, obj);
    this.lifecycle = new Lifecycle({
      store: this.store,
      strategies: this.strategies,
      admission: () => this.admission,
      namespaceExists: (ns) => this.namespaceExists(ns),
      onDeleted,
      durable: this.durable,
      builtinValidators: () => this.admissionPlugins,
      convert,
    });
    this.deleter = new Deleter({
      store: this.store,
      admission: () => this.admission,
      onDeleted,
      durable: this.durable,
      ...(opts.defaultPropagationPolicy ? { defaultPolicy: opts.defaultPropagationPolicy } : {}),
    });
  }

  notifyDeleted(rt: ResourceType, obj: KubeObject): void {
    for (const l of this.deletedListeners) l(rt, obj);
  }

  /** Records ownership for non-apply writes (create/update/patch) under the request's field manager. */
  managedFieldsRecorder(rt: ResourceType, version: string, ctx: RequestContext, subresource: string | undefined) {
    const manager = ctx.fieldManager ?? 'unknown';
    const schema = this.strategies.for(rt).patchSchema(version);
    return (oldObj: KubeObject | undefined, newObj: KubeObject) =>
      recordUpdate({
        oldObj,
        newObj,
        manager,
        operation: 'Update',
        schema,
        now: new Date(),
        apiVersion: groupVersion(rt.group, version),
        statusSubresource: rt.subresources.status,
        statusAnnotations: rt.statusWritesAnnotations === true,
        ...(subresource ? { subresource } : {}),
      }) as ManagedFieldsEntry[];
  }

  namespaceExists(ns: string): boolean {
    return this.store.get('/namespaces', undefined, ns) !== undefined;
  }

  /** The stored object as seen in `version`; may call the CRD's conversion webhook (500 when it fails). */
  async convertOut(rt: ResourceType, obj: KubeObject, version: string): Promise<KubeObject> {
    return (
      this.convertOutSync(rt, obj, version) ?? this.viewOf(rt, (await this.converter.convert(rt, [obj], version))[0]!)
    );
  }

  /** Stored objects as seen in `version`, in order; a conversion webhook gets them in one ConversionReview. */
  async convertOutMany(rt: ResourceType, objs: KubeObject[], version: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const o of objs) {
      const done = this.convertOutSync(rt, o, version);
      if (!done) return (await this.converter.convert(rt, objs, version)).map((c) => this.viewOf(rt, c));
      out.push(done);
    }
    return out;
  }

  /** convertOut when it needs no webhook call (always, except for CRDs with strategy Webhook); else undefined. */
  convertOutSync(rt: ResourceType, obj: KubeObject, version: string): KubeObject | undefined {
    const out = this.converter.trySync(rt, obj, version);
    return out && this.viewOf(rt, out);
  }

  /** events.k8s.io/v1 Events are core/v1 Events stored under other field names */
  private viewOf(rt: ResourceType, obj: KubeObject): KubeObject {
    return rt.storageKey === 'events' && rt.group === 'events.k8s.io' ? eventToEventsV1(obj) : obj;
  }

  storageVersionOf(rt: ResourceType): string {
    return storageVersion(rt);
  }
}

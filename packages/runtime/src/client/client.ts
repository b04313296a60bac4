// The typed client: CRUD, patch and server-side apply (whole object and /status) for built-in and custom
// kinds, resolved through discovery. Every write carries the client's field manager, so managedFields show
// which controller owns what; `withFieldManager` gives each controller its own view of one shared client.

import { KubeConfig } from '@kubernetes/client-node';
import type { KindRef, KubeList, KubeObject } from '../meta/types.ts';
import { isNotFound } from './errors.ts';
import { type QueryValue, Transport, type TransportOptions } from './http.ts';
import { collectionPath, objectPath, type ResourceMapping, RestMapper } from './mapper.ts';

export interface WriteOptions {
  /** validate and admit the request without persisting it (`dryRun=All`) */
  dryRun?: boolean;
  /** overrides the client's field manager for this request */
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

export interface ApplyOptions extends WriteOptions {
  /** take ownership of fields other managers own instead of failing with a conflict (default true) */
  force?: boolean;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** page size; without it the client follows `continue` tokens and returns everything */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** send this Accept header (e.g. PartialObjectMetadataList) */
  accept?: string;
}

/** what `kubectl logs` can ask for: a container, the previous run, the last lines, the first bytes */
export interface PodLogOptions {
  container?: string;
  previous?: boolean;
  tailLines?: number;
  limitBytes?: number;
}

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'json' | 'strategic';

const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

export interface ClientOptions extends TransportOptions {
  fieldManager?: string;
}

/** sees the server's response to every successful (non-dry-run) write, e.g. to update a cache */
export type WriteObserver = (obj: KubeObject) => void;

/**
 * sees the writes of one client view, and whether the answer is the object exactly as this write made it
 * (`pure`): true only for a create (201). Any other write may have changed nothing and returned someone
 * else's resourceVersion, or been applied on top of someone else's change made since the caller read the
 * object (a resourceVersion in a server-side apply body is not enforced everywhere), so its answer may
 * carry news the caller never acted on.
 */
export type OwnWriteObserver = (obj: KubeObject, pure: boolean) => void;

interface WriteFacts {
  dryRun?: boolean | undefined;
  /** the server answered 201 Created */
  created?: boolean;
}

export class KubeClient {
  readonly fieldManager: string | undefined;

  constructor(
    readonly transport: Transport,
    readonly mapper: RestMapper = new RestMapper(transport),
    fieldManager?: string,
    private readonly observers: WriteObserver[] = [],
    private readonly ownObservers: readonly OwnWriteObserver[] = [],
  ) {
    this.fieldManager = fieldManager;
  }

  /** registers `fn` on this client and every view sharing its connection */
  observeWrites(fn: WriteObserver): void {
    this.observers.push(fn);
  }

  /** `kc` may be a KubeConfig, kubeconfig YAML text, or omitted for the default loading rules (in-cluster, KUBECONFIG, ~/.kube/config) */
  static async create(kc?: KubeConfig | string, opts: ClientOptions = {}): Promise<KubeClient> {
    const config = loadKubeConfig(kc);
    const transport = await Transport.fromKubeConfig(config, opts);
    return new KubeClient(transport, new RestMapper(transport), opts.fieldManager);
  }

  /** the same connection and discovery cache, writing as `fieldManager` */
  withFieldManager(fieldManager: string): KubeClient {
    return new KubeClient(this.transport, this.mapper, fieldManager, this.observers, this.ownObservers);
  }

  /** this view (and views made from it) also report their own writes to `fn`, before the shared observers */
  withOwnWriteObserver(fn: OwnWriteObserver): KubeClient {
    return new KubeClient(this.transport, this.mapper, this.fieldManager, this.observers, [...this.ownObservers, fn]);
  }

  mapping(kind: KindRef<any>): Promise<ResourceMapping> {
    return this.mapper.mapping(kind.apiVersion, kind.kind);
  }

  async get<T extends KubeObject>(kind: KindRef<T>, name: string, namespace?: string): Promise<T> {
    const m = await this.mapping(kind);
    const res = await this.transport.request({ method: 'GET', path: objectPath(m, name, namespace) });
    return res.body as T;
  }

  /** like get, but a missing object is `undefined` instead of an error */
  async getOrUndefined<T extends KubeObject>(
    kind: KindRef<T>,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    try {
      return await this.get(kind, name, namespace);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject>(kind: KindRef<T>, opts: ListOptions = {}): Promise<KubeList<T>> {
    const m = await this.mapping(kind);
    const path = collectionPath(m, opts.namespace);
    const query: Record<string, QueryValue> = {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
    };
    const accept = opts.accept;
    if (opts.limit !== undefined) {
      const res = await this.transport.request({
        method: 'GET',
        path,
        query: { ...query, limit: opts.limit, continue: opts.continue },
        ...(accept ? { accept } : {}),
      });
      return res.body as KubeList<T>;
    }
    const items: T[] = [];
    let cont: string | undefined = opts.continue;
    let last: KubeList<T>;
    do {
      const res = await this.transport.request({
        method: 'GET',
        path,
        query: { ...query, limit: 500, continue: cont },
        ...(accept ? { accept } : {}),
      });
      last = res.body as KubeList<T>;
      items.push(...(last.items ?? []));
      cont = last.metadata?.continue || undefined;
    } while (cont);
    return { ...last, metadata: { resourceVersion: last.metadata?.resourceVersion ?? '' }, items };
  }

  /**
   * A container's log (pods/log) as text. Accepts JSON as kubectl does: kube-apiserver negotiates the media
   * type before it streams the text/plain log, and a request accepting only text/plain gets a 406.
   */
  async podLog(namespace: string, name: string, opts: PodLogOptions = {}): Promise<string> {
    const res = await this.transport.request({
      method: 'GET',
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/log`,
      query: {
        container: opts.container,
        previous: opts.previous || undefined,
        tailLines: opts.tailLines,
        limitBytes: opts.limitBytes,
      },
      accept: 'application/json, */*',
    });
    return typeof res.body === 'string' ? res.body : '';
  }

  async create<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const m = await this.mapping(obj);
    const res = await this.transport.request({
      method: 'POST',
      path: collectionPath(m, obj.metadata.namespace),
      query: this.writeQuery(opts),
      body: obj,
    });
    return this.written(res.body as T, { dryRun: opts.dryRun, created: true });
  }

  /** PUT: replaces the object; fails with a conflict when metadata.resourceVersion is stale */
  async update<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const m = await this.mapping(obj);
    const res = await this.transport.request({
      method: 'PUT',
      path: objectPath(m, nameOf(obj), obj.metadata.namespace),
      query: this.writeQuery(opts),
      body: obj,
    });
    return this.written(res.body as T, { dryRun: opts.dryRun, created: res.status === 201 });
  }

  /** PUT on /status: replaces only the status */
  async updateStatus<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const m = await this.mapping(obj);
    const res = await this.transport.request({
      method: 'PUT',
      path: objectPath(m, nameOf(obj), obj.metadata.namespace, 'status'),
      query: this.writeQuery(opts),
      body: obj,
    });
    return this.written(res.body as T, { dryRun: opts.dryRun });
  }

  async patch<T extends KubeObject>(
    kind: KindRef<T>,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    type: PatchType,
    opts: WriteOptions & { subresource?: string } = {},
  ): Promise<T> {
    const m = await this.mapping(kind);
    const res = await this.transport.request({
      method: 'PATCH',
      path: objectPath(m, name, namespace, opts.subresource),
      query: this.writeQuery(opts),
      body: patch,
      contentType: PATCH_CONTENT_TYPE[type],
    });
    return this.written(res.body as T, { dryRun: opts.dryRun, created: res.status === 201 });
  }

  /** deletes the object; a missing object is an error the caller can test with isNotFound */
  async delete(kind: KindRef<any>, name: string, namespace?: string, opts: DeleteOptions = {}): Promise<void> {
    const m = await this.mapping(kind);
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    await this.transport.request({
      method: 'DELETE',
      path: objectPath(m, name, namespace),
      query: { dryRun: opts.dryRun ? 'All' : undefined },
      body,
    });
  }

  /**
   * Server-side apply of a whole object: the server merges the fields this manager sets, removes fields it
   * set before and no longer does, and creates the object if missing. `force` defaults to true because a
   * controller is the authority for the fields it applies.
   */
  async apply<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions = {}): Promise<T> {
    return this.applyTo<T>(obj, opts, undefined);
  }

  /** server-side apply to the status subresource (only `.status` of the body counts) */
  async applyStatus<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions = {}): Promise<T> {
    return this.applyTo<T>(obj, opts, 'status');
  }

  close(): void {
    this.transport.close();
  }

  private async applyTo<T extends KubeObject>(
    obj: KubeObject,
    opts: ApplyOptions,
    subresource: string | undefined,
  ): Promise<T> {
    const fieldManager = opts.fieldManager ?? this.fieldManager;
    if (!fieldManager)
      throw new Error(
        `apply ${obj.kind} "${nameOf(obj)}": server-side apply needs a field manager (client.withFieldManager or opts.fieldManager)`,
      );
    const m = await this.mapping(obj);
    // the API server refuses apply bodies that carry managedFields; they describe, not request, ownership
    const { managedFields: _managed, ...metadata } = obj.metadata;
    const body = { ...obj, metadata };
    const res = await this.transport.request({
      method: 'PATCH',
      path: objectPath(m, nameOf(obj), obj.metadata.namespace, subresource),
      query: { ...this.writeQuery({ ...opts, fieldManager }), force: opts.force ?? true },
      body,
      contentType: APPLY_CONTENT_TYPE,
    });
    return this.written(res.body as T, { dryRun: opts.dryRun, created: res.status === 201 });
  }

  private written<T extends KubeObject>(obj: T, facts: WriteFacts): T {
    if (facts.dryRun || !obj || typeof obj !== 'object' || !obj.metadata) return obj;
    for (const fn of this.ownObservers) fn(obj, facts.created === true);
    for (const fn of this.observers) fn(obj);
    return obj;
  }

  private writeQuery(opts: WriteOptions): Record<string, QueryValue> {
    return {
      dryRun: opts.dryRun ? 'All' : undefined,
      fieldManager: opts.fieldManager ?? this.fieldManager,
      fieldValidation: opts.fieldValidation,
    };
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${obj.kind}: metadata.name is required`);
  return name;
}

export function loadKubeConfig(kc?: KubeConfig | string): KubeConfig {
  if (kc instanceof KubeConfig) return kc;
  const config = new KubeConfig();
  if (typeof kc === 'string') config.loadFromString(kc);
  else config.loadFromDefault();
  return config;
}

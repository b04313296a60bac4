// FetchResult<T>: a fetched value or the reason there is none, as data. FetchRemoteState returns these
// instead of throwing, so one failed read neither hides the others nor aborts the reconcile, and the
// health step can turn each into a component with the right category.

import type { InformerSpec } from '@modelplane/runtime/cache';
import type { KubeClient } from '@modelplane/runtime/client';
import { ApiError } from '@modelplane/runtime/errors';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { CategorizedError, categorize, missingDownstreamError, missingUpstreamError } from './errors.ts';
import type { ComponentHealth, HealthReport } from './health.ts';

/** what FetchResult remembers about its target, so a NotFound can name the object */
export interface FetchTarget {
  kind: string;
  name?: string;
  namespace?: string;
}

export class FetchResult<T> {
  private constructor(
    readonly value: T | undefined,
    readonly error: unknown,
    readonly target: FetchTarget | undefined,
  ) {}

  static of<T>(value: T, target?: FetchTarget): FetchResult<T> {
    return new FetchResult<T>(value, undefined, target);
  }

  static failure<T>(error: unknown, target?: FetchTarget): FetchResult<T> {
    if (error === undefined || error === null) throw new Error('FetchResult.failure: an error is required');
    return new FetchResult<T>(undefined, error, target);
  }

  /** a NotFound for `target`, shaped like the API server's so every reader reports it the same way */
  static notFound<T>(target: FetchTarget): FetchResult<T> {
    return new FetchResult<T>(undefined, notFoundError(target), target);
  }

  /** the value is there */
  ok(): this is FetchResult<T> & { readonly value: T; readonly error: undefined } {
    return this.error === undefined;
  }

  hasError(): boolean {
    return this.error !== undefined;
  }

  /** the target does not exist (an API NotFound, possibly wrapped in a CategorizedError as its cause) */
  isNotFound(): boolean {
    let e: unknown = this.error;
    for (let depth = 0; e !== undefined && depth < 5; depth++) {
      if (e instanceof ApiError) return e.code === 404;
      e = e instanceof CategorizedError ? e.cause : undefined;
    }
    return false;
  }

  /** the error in its category (undefined when ok) */
  categorized(): CategorizedError | undefined {
    return this.error === undefined ? undefined : categorize(this.error);
  }

  /** maps the value, keeping an error as it is */
  map<U>(fn: (value: T) => U): FetchResult<U> {
    return this.ok() ? FetchResult.of(fn(this.value), this.target) : FetchResult.failure<U>(this.error, this.target);
  }

  /** the inspector's report for a value; the error (categorised as it is) otherwise */
  toComponentHealth(component: string, inspect: (value: T) => HealthReport): ComponentHealth {
    if (this.ok()) return { ...inspect(this.value), component };
    return { component, errors: [this.error] };
  }

  /** for user-referenced objects: NotFound ⇒ MissingUpstreamDependency (`ReferenceNotFound`), state Pending when not ready */
  toUpstreamComponentHealth(component: string, inspect: (value: T) => HealthReport): ComponentHealth {
    if (this.ok()) return { ...inspect(this.value), component, dependencyType: 'Upstream' };
    const error = this.isNotFound()
      ? missingUpstreamError('ReferenceNotFound', `${describe(this.target)} not found`, this.error)
      : this.error;
    return { component, errors: [error], dependencyType: 'Upstream' };
  }

  /** for objects this controller creates: NotFound ⇒ MissingDownstreamDependency (`ResourceNotReady`) */
  toDownstreamComponentHealth(component: string, inspect: (value: T) => HealthReport): ComponentHealth {
    if (this.ok()) return { ...inspect(this.value), component, dependencyType: 'Downstream' };
    const error = this.isNotFound()
      ? missingDownstreamError('ResourceNotReady', `${describe(this.target)} does not exist yet`, this.error)
      : this.error;
    return { component, errors: [error], dependencyType: 'Downstream' };
  }
}

function describe(t: FetchTarget | undefined): string {
  if (!t) return 'object';
  const where = t.namespace ? `${t.namespace}/` : '';
  return t.name ? `${t.kind} ${where}${t.name}` : `${t.kind} list${t.namespace ? ` in ${t.namespace}` : ''}`;
}

function notFoundError(t: FetchTarget): ApiError {
  // a cache miss is an answer, not a failure to trace: no stack (capturing one was most of its cost)
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ApiError({
      code: 404,
      reason: 'NotFound',
      message: `${describe(t)} not found`,
      details: { kind: t.kind, ...(t.name ? { name: t.name } : {}) },
    });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Where FetchRemoteState reads from. The informer cache satisfies it (reads in the reconcile path come
 * from the cache); `clientReader` wraps a client for the rare read that must be live.
 */
export interface ObjectReader {
  /** `informer` picks one of the cache's informers for the kind (a label-filtered one); other readers ignore it */
  get<T extends KubeObject>(
    kind: KindRef<T>,
    name: string,
    namespace?: string,
    informer?: InformerSpec,
  ): Promise<T | undefined>;
  list<T extends KubeObject>(
    kind: KindRef<T>,
    opts?: { namespace?: string; labelSelector?: string },
    informer?: InformerSpec,
  ): Promise<T[]>;
}

export function clientReader(client: Pick<KubeClient, 'getOrUndefined' | 'list'>): ObjectReader {
  return {
    get: (kind, name, namespace) => client.getOrUndefined(kind, name, namespace),
    list: async (kind, opts = {}) => (await client.list(kind, opts)).items,
  };
}

/** reads one object; a missing object is a NotFound result, any failure a categorisable error */
export async function fetch<T extends KubeObject>(
  reader: ObjectReader,
  kind: KindRef<T>,
  name: string,
  namespace?: string,
  informer?: InformerSpec,
): Promise<FetchResult<T>> {
  const target: FetchTarget = { kind: kind.kind, name, ...(namespace ? { namespace } : {}) };
  try {
    const obj = await (informer ? reader.get(kind, name, namespace, informer) : reader.get(kind, name, namespace));
    return obj === undefined ? FetchResult.notFound<T>(target) : FetchResult.of(obj, target);
  } catch (err) {
    return FetchResult.failure<T>(err, target);
  }
}

/** lists objects (possibly none: an empty list is a value, not a NotFound) */
export async function fetchList<T extends KubeObject>(
  reader: ObjectReader,
  kind: KindRef<T>,
  opts: { namespace?: string; labelSelector?: string } = {},
  informer?: InformerSpec,
): Promise<FetchResult<T[]>> {
  const target: FetchTarget = { kind: kind.kind, ...(opts.namespace ? { namespace: opts.namespace } : {}) };
  try {
    return FetchResult.of(await (informer ? reader.list(kind, opts, informer) : reader.list(kind, opts)), target);
  } catch (err) {
    return FetchResult.failure<T[]>(err, target);
  }
}

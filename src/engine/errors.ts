// The error categories of docs/controllers.md's table and the ONE function that sorts any failure into them.
// Everything downstream (parent conditions, apply gating, requeue) keys off the category, so a new kind
// of failure is taught to the engine here and nowhere else. API errors are classified by HTTP status and
// network cause as packages/runtime reports them, never by message text.

import { ApiError, isAlreadyExists, isConflict, isNoKindMatch } from '@modelplane/runtime/errors';

export const ErrorCategory = {
  Infrastructure: 'Infrastructure',
  Auth: 'Auth',
  InvalidSpec: 'InvalidSpec',
  MissingUpstreamDependency: 'MissingUpstreamDependency',
  MissingDownstreamDependency: 'MissingDownstreamDependency',
  ResourceExhaustion: 'ResourceExhaustion',
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

/** the parent conditions the engine creates lazily, on the first error of a category */
export const ParentCondition = {
  DependenciesReachable: 'DependenciesReachable',
  AuthValid: 'AuthValid',
  ConfigValid: 'ConfigValid',
} as const;
export type ParentConditionType = (typeof ParentCondition)[keyof typeof ParentCondition];

export interface CategoryBehaviour {
  /** planned objects are not applied while an error of this category is present */
  blocksApply: boolean;
  /** the reconcile is retried with exponential backoff (otherwise watches bring it back) */
  requeueWithBackoff: boolean;
  /** the parent condition set False, and its reason; none = only the component condition shows it */
  parent?: { type: ParentConditionType; reason: string };
  /** reason given to errors of this category when the producer named none */
  defaultReason: string;
}

/** docs/controllers.md's error table. ResourceExhaustion stops applies as docs/controllers.md says (the original kept applying). */
export const CATEGORY_BEHAVIOUR: Readonly<Record<ErrorCategory, CategoryBehaviour>> = {
  Infrastructure: {
    blocksApply: true,
    requeueWithBackoff: true,
    parent: { type: 'DependenciesReachable', reason: 'InfrastructureError' },
    defaultReason: 'InfrastructureError',
  },
  Auth: {
    blocksApply: true,
    requeueWithBackoff: false,
    parent: { type: 'AuthValid', reason: 'AuthError' },
    defaultReason: 'AuthError',
  },
  InvalidSpec: {
    blocksApply: true,
    requeueWithBackoff: false,
    parent: { type: 'ConfigValid', reason: 'InvalidSpec' },
    defaultReason: 'InvalidSpec',
  },
  MissingUpstreamDependency: {
    blocksApply: true,
    requeueWithBackoff: false,
    parent: { type: 'ConfigValid', reason: 'ReferenceNotFound' },
    defaultReason: 'ReferenceNotFound',
  },
  MissingDownstreamDependency: { blocksApply: false, requeueWithBackoff: false, defaultReason: 'ResourceNotReady' },
  ResourceExhaustion: { blocksApply: true, requeueWithBackoff: false, defaultReason: 'ResourceExhausted' },
};

/** reasons of the parent conditions when they are (back to) True */
export const PARENT_TRUE_REASON: Readonly<Record<ParentConditionType, string>> = {
  DependenciesReachable: 'Reachable',
  AuthValid: 'AuthenticationValid',
  ConfigValid: 'ConfigurationValid',
};

/** A failure with its category; `reason` is a condition reason (CamelCase), `message` is for humans. */
export class CategorizedError extends Error {
  constructor(
    readonly category: ErrorCategory,
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CategorizedError';
  }

  get behaviour(): CategoryBehaviour {
    return CATEGORY_BEHAVIOUR[this.category];
  }
}

function make(category: ErrorCategory) {
  return (reason: string | undefined, message: string, cause?: unknown): CategorizedError =>
    new CategorizedError(
      category,
      reason || CATEGORY_BEHAVIOUR[category].defaultReason,
      message,
      cause === undefined ? undefined : { cause },
    );
}

/** network timeouts, API server down, 5xx, 429, conflicts: retried with backoff after a grace period */
export const infrastructureError = make('Infrastructure');
/** 401/403, invalid credentials, image-pull auth failures */
export const authError = make('Auth');
/** invalid configuration, rejected objects, failed jobs */
export const invalidSpecError = make('InvalidSpec');
/** a user-referenced object (config, secret, model) does not exist: needs the user to act */
export const missingUpstreamError = make('MissingUpstreamDependency');
/** something the controller creates is not there or not ready yet: expected to heal itself */
export const missingDownstreamError = make('MissingDownstreamDependency');
/** OOM, disk full, quota exceeded */
export const resourceExhaustionError = make('ResourceExhaustion');

/**
 * Sorts any failure into a category. Already-categorised errors pass through; API errors go by status
 * code and network cause; anything else unknown is treated as Infrastructure (retrying is the safe default
 * for a failure nobody anticipated, and the grace period keeps a blip from showing).
 */
export function categorize(err: unknown): CategorizedError {
  if (err instanceof CategorizedError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (isNoKindMatch(err)) {
    // the kind is not served (CRD not installed yet): retry, installing it heals the object
    return infrastructureError('KindNotServed', message, err);
  }
  if (err instanceof ApiError) return categorizeApiError(err, message);
  // raw socket errors (ECONNREFUSED, ETIMEDOUT, DNS) and anything unforeseen
  return infrastructureError('InfrastructureError', message, err);
}

function categorizeApiError(err: ApiError, message: string): CategorizedError {
  // no response at all: refused, reset, DNS, timeout, TLS
  if (err.code === 0) return infrastructureError('InfrastructureError', message, err);
  const code = err.code;
  // a namespace being deleted refuses new objects with 403: not a credential problem, and nothing to retry
  if (code === 403 && isNamespaceTerminating(err)) return missingUpstreamError('NamespaceTerminating', message, err);
  if (code === 401 || code === 403) return authError('AuthError', message, err);
  // a raw NotFound means "not there yet" unless the caller knows the object is user-referenced
  // (FetchResult.toUpstreamComponentHealth turns it into MissingUpstreamDependency)
  if (code === 404) return missingDownstreamError('NotFound', message, err);
  if (isAlreadyExists(err)) return invalidSpecError('AlreadyExists', message, err);
  if (isConflict(err)) return infrastructureError('Conflict', message, err);
  if (code === 408 || code === 410 || code === 429 || code >= 500)
    return infrastructureError('InfrastructureError', message, err);
  // 400, 405, 413, 415, 422, other 4xx: the request itself is wrong, retrying unchanged cannot help
  return invalidSpecError('InvalidSpec', message, err);
}

function isNamespaceTerminating(err: ApiError): boolean {
  return (
    (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating') ||
    /because it is being terminated/.test(err.message)
  );
}

/** the worst-first order in which parent conditions and the Ready reason pick among blocking categories */
export const BLOCKING_PRIORITY: readonly ErrorCategory[] = ['Auth', 'InvalidSpec', 'MissingUpstreamDependency'];

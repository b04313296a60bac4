// What a failed write of a LlamaStackDistribution's children was refused for (docs/llamastack.md, "When a
// write fails"): a ResourceQuota, an admission policy, the operator's own permissions, a size limit or a
// conflict. The API server reports these only as an HTTP status and a message, so the cause is read from
// both. Every one of them is retried with backoff: quota is freed, a policy is changed, a role is fixed,
// a webhook comes back, without any change to the object that would bring it back through a watch.

import { ApiError } from '@modelplane/runtime/client';
import { type CategorizedError, CategorizedError as CE } from '../../engine/index.ts';

export interface WriteCause {
  /** the condition reason */
  reason: string;
  /** what refused the write, for people */
  what: string;
}

const QUOTA = /exceeded quota|forbidden: failed quota/i;
const ADMISSION = /admission webhook "[^"]*" denied|ValidatingAdmissionPolicy '[^']*'.* denied request/i;
const TOO_LARGE = /too long|too large|request entity|exceeds the maximum|must have at most \d+ bytes/i;

/** the cause of a write the API server refused, or undefined when it is not a refusal (5xx, network) */
export function writeCause(err: unknown): WriteCause | undefined {
  if (!(err instanceof ApiError) || err.code === 0) return undefined;
  const text = err.message;
  if (err.code === 403 && QUOTA.test(text)) return { reason: 'QuotaExceeded', what: 'a ResourceQuota refused it' };
  if (err.code === 413 || ((err.code === 422 || err.code === 500) && TOO_LARGE.test(text)))
    return { reason: 'ObjectTooLarge', what: 'the object is larger than the API server accepts' };
  if (err.code === 409) return { reason: 'WriteConflict', what: 'another writer changed the object first' };
  if (ADMISSION.test(text)) return { reason: 'AdmissionDenied', what: 'an admission policy refused it' };
  if (err.code === 403)
    return { reason: 'Forbidden', what: "the operator's role does not allow it (check `modelplane rbac`)" };
  if (err.code === 422 || err.code === 400) return { reason: 'WriteInvalid', what: 'the API server found it invalid' };
  return undefined;
}

/**
 * The engine's classification of a failed write, made the controller's own: a refusal keeps its cause as
 * the reason and becomes an Infrastructure error, so the engine retries it with backoff.
 */
export function classifyWriteError(err: CategorizedError): CategorizedError {
  const cause = writeCause(err.cause);
  if (!cause) return err;
  return new CE('Infrastructure', cause.reason, `${err.message} (${cause.what}; retrying with backoff)`, {
    cause: err.cause,
  });
}

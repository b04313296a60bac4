// Every failure of a request to the API server becomes an ApiError, classified by HTTP status and, when
// no response arrived, by the network cause (the socket error code). Callers branch on these predicates,
// never on message strings, because messages differ between API server versions.
import { isStatus, reasonForCode, type Status, type StatusDetails } from '@modelplane/apimachinery';

export type { Status, StatusCause, StatusDetails } from '@modelplane/apimachinery';

/** Why a request got no HTTP response at all. */
export type NetworkCause = 'connection-refused' | 'connection-reset' | 'dns' | 'timeout' | 'tls' | 'aborted' | 'other';

export interface ApiErrorInit {
  /** HTTP status; 0 when the request never got a response */
  code: number;
  reason: string;
  message: string;
  verb?: string;
  path?: string;
  details?: StatusDetails;
  retryAfterSeconds?: number;
  network?: NetworkCause;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly verb: string;
  readonly path: string;
  readonly details?: StatusDetails;
  readonly retryAfterSeconds?: number;
  readonly network?: NetworkCause;

  constructor(init: ApiErrorInit) {
    const where = init.verb && init.path ? `${init.verb} ${init.path}: ` : '';
    super(`${where}${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.code = init.code;
    this.reason = init.reason;
    this.verb = init.verb ?? '';
    this.path = init.path ?? '';
    if (init.details) this.details = init.details;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.network) this.network = init.network;
  }

  /** builds the error for a non-2xx response; `body` is the parsed Status when the server sent one */
  static fromResponse(verb: string, path: string, code: number, body: unknown, retryAfterHeader?: string): ApiError {
    const status = isStatus(body) ? body : undefined;
    const headerRetry = retryAfterHeader !== undefined ? Number.parseInt(retryAfterHeader, 10) : Number.NaN;
    const retryAfterSeconds = Number.isFinite(headerRetry) ? headerRetry : status?.details?.retryAfterSeconds;
    const init: ApiErrorInit = {
      code,
      reason: status?.reason || reasonForCode(code),
      message: status?.message || `HTTP ${code} ${reasonForCode(code)}`,
      verb,
      path,
    };
    if (status?.details) init.details = status.details;
    if (retryAfterSeconds !== undefined) init.retryAfterSeconds = retryAfterSeconds;
    return new ApiError(init);
  }

  /** builds the error for a Status carried in a watch ERROR event */
  static fromStatus(verb: string, path: string, status: Status): ApiError {
    const code = typeof status.code === 'number' ? status.code : 500;
    return ApiError.fromResponse(verb, path, code, status);
  }

  static fromNetwork(verb: string, path: string, err: unknown): ApiError {
    if (err instanceof ApiError) return err;
    const network = networkCause(err);
    const message = err instanceof Error ? err.message : String(err);
    return new ApiError({
      code: 0,
      reason: network === 'timeout' ? 'Timeout' : 'NetworkError',
      message,
      verb,
      path,
      network,
      cause: err,
    });
  }
}

const CONN_REFUSED = new Set(['ECONNREFUSED']);
const CONN_RESET = new Set([
  'ECONNRESET',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN']);
const TIMEOUT = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_REQUEST_TIMEOUT']);

/** classifies a socket-level error by its `code` (node's errno names), not its message */
export function networkCause(err: unknown): NetworkCause {
  const e = err as { code?: unknown; name?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (CONN_REFUSED.has(code)) return 'connection-refused';
  if (CONN_RESET.has(code)) return 'connection-reset';
  if (DNS.has(code)) return 'dns';
  if (TIMEOUT.has(code) || e?.name === 'TimeoutError') return 'timeout';
  if (code === 'ABORT_ERR' || e?.name === 'AbortError') return 'aborted';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
  )
    return 'tls';
  return 'other';
}

function asApiError(err: unknown): ApiError | undefined {
  return err instanceof ApiError ? err : undefined;
}

export function isNotFound(err: unknown): boolean {
  return asApiError(err)?.code === 404;
}
export function isAlreadyExists(err: unknown): boolean {
  const e = asApiError(err);
  return e?.code === 409 && e.reason === 'AlreadyExists';
}
/** an optimistic-concurrency conflict (stale resourceVersion) or a server-side-apply field conflict */
export function isConflict(err: unknown): boolean {
  const e = asApiError(err);
  return e?.code === 409 && e.reason !== 'AlreadyExists';
}
/** a server-side apply refused because another field manager owns some of the fields */
export function isApplyConflict(err: unknown): boolean {
  const e = asApiError(err);
  return e?.code === 409 && (e.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');
}
/** 410: the requested resourceVersion is older than the server's history; relist */
export function isGone(err: unknown): boolean {
  return asApiError(err)?.code === 410;
}
export function isInvalid(err: unknown): boolean {
  return asApiError(err)?.code === 422;
}
export function isBadRequest(err: unknown): boolean {
  return asApiError(err)?.code === 400;
}
export function isForbidden(err: unknown): boolean {
  return asApiError(err)?.code === 403;
}
export function isUnauthorized(err: unknown): boolean {
  return asApiError(err)?.code === 401;
}
export function isTooManyRequests(err: unknown): boolean {
  return asApiError(err)?.code === 429;
}
export function isServerError(err: unknown): boolean {
  const code = asApiError(err)?.code ?? 0;
  return code >= 500;
}
export function isNetworkError(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && e.code === 0 && e.network !== 'aborted';
}
export function isTimeout(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.network === 'timeout' || e.code === 504);
}
/** the request was aborted by the caller (e.g. a stop); not a failure to report */
export function isAborted(err: unknown): boolean {
  return asApiError(err)?.network === 'aborted';
}
/** worth retrying unchanged: the server or network was unavailable, overloaded or slow */
export function isTransient(err: unknown): boolean {
  const e = asApiError(err);
  if (!e) return false;
  if (e.code === 0) return e.network !== 'tls' && e.network !== 'aborted';
  return e.code === 429 || e.code === 500 || e.code === 502 || e.code === 503 || e.code === 504;
}

/** the kind is not served by the API server (CRD missing or not yet established) */
export class NoKindMatchError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no matches for kind "${kind}" in version "${apiVersion}"`);
    this.name = 'NoKindMatchError';
  }
}

export function isNoKindMatch(err: unknown): err is NoKindMatchError {
  return err instanceof NoKindMatchError;
}

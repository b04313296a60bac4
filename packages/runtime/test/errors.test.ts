import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ApiError,
  isAborted,
  isAlreadyExists,
  isApplyConflict,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNetworkError,
  isNotFound,
  isServerError,
  isTimeout,
  isTooManyRequests,
  isTransient,
  isUnauthorized,
  networkCause,
} from '../src/client/errors.ts';

const status = (code: number, reason: string, details?: object) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message: `msg ${reason}`,
  ...(details ? { details } : {}),
});

describe('ApiError classification by HTTP status', () => {
  const predicates = {
    isNotFound,
    isAlreadyExists,
    isConflict,
    isApplyConflict,
    isGone,
    isInvalid,
    isForbidden,
    isUnauthorized,
    isTooManyRequests,
    isServerError,
    isTimeout,
    isTransient,
    isNetworkError,
  };
  type P = keyof typeof predicates;
  const cases: Array<[code: number, reason: string, truthy: P[], details?: object]> = [
    [404, 'NotFound', ['isNotFound']],
    [409, 'AlreadyExists', ['isAlreadyExists']],
    [409, 'Conflict', ['isConflict']],
    [
      409,
      'Conflict',
      ['isConflict', 'isApplyConflict'],
      { causes: [{ reason: 'FieldManagerConflict', field: '.spec.replicas', message: 'conflict with "kubectl"' }] },
    ],
    [410, 'Expired', ['isGone']],
    [422, 'Invalid', ['isInvalid']],
    [403, 'Forbidden', ['isForbidden']],
    [401, 'Unauthorized', ['isUnauthorized']],
    [429, 'TooManyRequests', ['isTooManyRequests', 'isTransient']],
    [500, 'InternalError', ['isServerError', 'isTransient']],
    [503, 'ServiceUnavailable', ['isServerError', 'isTransient']],
    [504, 'Timeout', ['isServerError', 'isTransient', 'isTimeout']],
    [400, 'BadRequest', []],
  ];
  for (const [code, reason, truthy, details] of cases) {
    it(`${code} ${reason}${details ? ' with causes' : ''} → ${truthy.join(', ') || 'none'}`, () => {
      const err = ApiError.fromResponse('GET', '/api/v1/x', code, status(code, reason, details));
      for (const [name, pred] of Object.entries(predicates))
        assert.equal(pred(err), truthy.includes(name as P), `${name} for ${code} ${reason}`);
      assert.equal(err.code, code);
      assert.equal(err.reason, reason);
      assert.match(err.message, /^GET \/api\/v1\/x: msg /);
    });
  }

  it('fills in a reason when the body is not a Status, and reads Retry-After', () => {
    const err = ApiError.fromResponse('PATCH', '/p', 503, 'upstream connect error', '7');
    assert.equal(err.reason, 'ServiceUnavailable');
    assert.equal(err.retryAfterSeconds, 7);
    assert.equal(isTransient(err), true);
  });

  it('does not classify non-ApiErrors', () => {
    assert.equal(isNotFound(new Error('404 not found')), false);
    assert.equal(isTransient(new Error('ECONNRESET')), false);
  });
});

describe('network causes (by error code, not message)', () => {
  const cases: Array<[code: string | undefined, name: string | undefined, cause: string, transient: boolean]> = [
    ['ECONNREFUSED', undefined, 'connection-refused', true],
    ['ECONNRESET', undefined, 'connection-reset', true],
    ['EPIPE', undefined, 'connection-reset', true],
    ['ERR_STREAM_PREMATURE_CLOSE', undefined, 'connection-reset', true],
    ['ENOTFOUND', undefined, 'dns', true],
    ['ETIMEDOUT', undefined, 'timeout', true],
    [undefined, 'TimeoutError', 'timeout', true],
    ['ABORT_ERR', 'AbortError', 'aborted', false],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', undefined, 'tls', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', undefined, 'tls', false],
    ['EWHATEVER', undefined, 'other', true],
  ];
  for (const [code, name, cause, transient] of cases) {
    it(`${code ?? name} → ${cause}`, () => {
      const raw = Object.assign(new Error('some message'), code ? { code } : {}, name ? { name } : {});
      assert.equal(networkCause(raw), cause);
      const err = ApiError.fromNetwork('GET', '/x', raw);
      assert.equal(err.code, 0);
      assert.equal(err.network, cause);
      assert.equal(isTransient(err), transient);
      assert.equal(isAborted(err), cause === 'aborted');
      assert.equal(isNetworkError(err), cause !== 'aborted');
      assert.equal(err.cause, raw);
    });
  }
});

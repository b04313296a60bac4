// A model whose image metadata the registry refused is retried with backoff (docs/aim.md, "Models"): as long
// again as the failure has lasted, at least 10 s, at most 2 min; other failures are not retried this way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AIMImageMetadata } from '../../../src/apis/aim/index.ts';
import { AUTH_RETRY_MAX_MS, AUTH_RETRY_MIN_MS, authRetryMs } from '../../../src/controllers/aim/model/controller.ts';
import type { AnyModel } from '../../../src/controllers/aim/shared/kinds.ts';
import { authError, FetchResult, infrastructureError, missingUpstreamError } from '../../../src/engine/index.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const model = (authFalseSince?: string): AnyModel =>
  ({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMModel',
    metadata: { name: 'm', namespace: 'ns' },
    spec: { image: 'amdenterpriseai/aim-private-model:0.9.0' },
    ...(authFalseSince
      ? {
          status: {
            conditions: [
              {
                type: 'AuthValid',
                status: 'False',
                reason: 'AuthError',
                message: '',
                lastTransitionTime: authFalseSince,
              },
            ],
          },
        }
      : {}),
  }) as AnyModel;
const failed = (err: unknown) => ({
  metadata: {
    source: 'Registry' as const,
    result: FetchResult.failure<AIMImageMetadata>(err, { kind: 'Image', name: 'x' }),
  },
});

describe('image-metadata auth failures are retried with backoff', () => {
  const refused = failed(authError('ImagePullAuthFailure', 'unauthorized'));
  it('first failure: the minimum; then as long again as it has lasted; capped', () => {
    assert.equal(authRetryMs(model(), { ...refused, now: T0 }), AUTH_RETRY_MIN_MS);
    assert.equal(authRetryMs(model('2026-01-01T00:00:00Z'), { ...refused, now: T0 + 1_000 }), AUTH_RETRY_MIN_MS);
    assert.equal(authRetryMs(model('2026-01-01T00:00:00Z'), { ...refused, now: T0 + 40_000 }), 40_000);
    assert.equal(authRetryMs(model('2026-01-01T00:00:00Z'), { ...refused, now: T0 + 3_600_000 }), AUTH_RETRY_MAX_MS);
  });
  it('a garbage transition time never yields NaN', () => {
    assert.equal(authRetryMs(model('not a time'), { ...refused, now: T0 }), AUTH_RETRY_MIN_MS);
  });
  it('not for other failures (not found, unreachable: the engine backs those off) nor for success', () => {
    assert.equal(
      authRetryMs(model(), { ...failed(missingUpstreamError('ImageNotFound', 'gone')), now: T0 }),
      undefined,
    );
    assert.equal(
      authRetryMs(model(), { ...failed(infrastructureError('RegistryUnavailable', 'x')), now: T0 }),
      undefined,
    );
    const ok = {
      metadata: { source: 'Registry' as const, result: FetchResult.of<AIMImageMetadata>({}, { kind: 'Image' }) },
      now: T0,
    };
    assert.equal(authRetryMs(model(), ok), undefined);
  });
});

// POST …/serviceaccounts/<name>/token (TokenRequest): what `kubectl create token <sa>` calls. Follows
// pkg/resource-types/core/serviceaccount/storage/token.go: name/namespace must match the URL, audiences
// default to the API audiences, expirationSeconds defaults to 3600 and must lie in [600, 2^32].
import { errors } from '../errors.ts';
import type { ResourceRequest } from '../handlers/request.ts';
import { decodeObject, readBody } from '../http/body.ts';
import { writeJson } from '../http/respond.ts';
import { isPlainObject, kubeTime } from '../objects/meta.ts';
import { fieldErrors } from '../validation/field-errors.ts';
import {
  type BoundObjectRef,
  DEFAULT_EXPIRATION_SECONDS,
  type ServiceAccountTokens,
} from './service-account-tokens.ts';

const GROUP = 'authentication.k8s.io';
const MIN_EXPIRATION = 10 * 60;
const MAX_EXPIRATION = 2 ** 32;

export function tokenRequestHandler(tokens: ServiceAccountTokens): (r: ResourceRequest) => Promise<number> | undefined {
  return (r) => {
    if (r.rt.group !== '' || r.rt.plural !== 'serviceaccounts' || r.info.subresource !== 'token') return undefined;
    if (r.info.verb !== 'create')
      return Promise.reject(errors.methodNotAllowed('the server does not allow this method on the requested resource'));
    return createToken(tokens, r);
  };
}

/** spec.expirationSeconds, defaulted, an integer between 10 minutes and 2^32 seconds */
function requestedExpiration(spec: Record<string, unknown>): number {
  const expirationSeconds =
    spec.expirationSeconds == null ? DEFAULT_EXPIRATION_SECONDS : Number(spec.expirationSeconds);
  if (!Number.isInteger(expirationSeconds))
    throw errors.badRequest(`spec.expirationSeconds must be an integer, got ${JSON.stringify(spec.expirationSeconds)}`);
  const causes = [];
  if (expirationSeconds < MIN_EXPIRATION)
    causes.push(
      fieldErrors.invalid(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration less than 10 minutes',
      ),
    );
  if (expirationSeconds > MAX_EXPIRATION)
    causes.push(
      fieldErrors.invalid(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    );
  if (causes.length > 0) throw errors.invalid('TokenRequest', GROUP, '', causes);

  return expirationSeconds;
}

async function createToken(tokens: ServiceAccountTokens, r: ResourceRequest): Promise<number> {
  const body = decodeObject(await readBody(r.req), r.req.headers['content-type']);
  if (body.apiVersion !== undefined && body.apiVersion !== `${GROUP}/v1`) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${GROUP}/v1)`,
    );
  }
  if (body.kind !== undefined && body.kind !== 'TokenRequest')
    throw errors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (TokenRequest)`,
    );
  const name = r.info.name!;
  const namespace = r.info.namespace!;
  const meta = isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.name && meta.name !== name) {
    throw errors.invalid('TokenRequest', GROUP, name, [
      fieldErrors.invalid('metadata.name', meta.name, 'must match the service account name if specified'),
    ]);
  }
  if (meta.namespace && meta.namespace !== namespace) {
    throw errors.invalid('TokenRequest', GROUP, name, [
      fieldErrors.invalid(
        'metadata.namespace',
        meta.namespace,
        'must match the service account namespace if specified',
      ),
    ]);
  }
  if (!r.core.store.get('/serviceaccounts', namespace, name)) throw errors.notFound('serviceaccounts', '', name);

  const spec = isPlainObject(body.spec) ? body.spec : {};
  const audiences =
    Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : tokens.apiAudiences;
  const expirationSeconds = requestedExpiration(spec);
  const now = new Date();
  const boundObjectRef = isPlainObject(spec.boundObjectRef) ? (spec.boundObjectRef as BoundObjectRef) : undefined;
  const { token, claims } = tokens.mint({ namespace, name, audiences, expirationSeconds, boundObjectRef }, now);
  const out = {
    kind: 'TokenRequest',
    apiVersion: `${GROUP}/v1`,
    metadata: { ...meta, name, namespace, creationTimestamp: kubeTime(now) },
    spec: { audiences, expirationSeconds, boundObjectRef: boundObjectRef ?? null },
    status: { token, expirationTimestamp: kubeTime(new Date(claims.exp * 1000)) },
  };
  writeJson(r.res, 201, out);
  return 201;
}

// The create-only review APIs: SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview
// (`can-i --list`), SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectReview (`kubectl auth
// whoami`) and TokenReview. Each answers from the live authenticator/authorizer and stores nothing.
import { errors, type StatusError } from '../errors.ts';
import type { ResourceRequest } from '../handlers/request.ts';
import { decodeObject, readBody } from '../http/body.ts';
import { writeJson } from '../http/respond.ts';
import { isPlainObject } from '../objects/meta.ts';
import type { UserInfo } from '../types.ts';
import { aggregateMessage, fieldErrors } from '../validation/field-errors.ts';
import type { BearerAuthenticator } from './authenticator.ts';
import type { RbacAuthorizer } from './rbac/authorizer.ts';
import type { Authorizer, AuthUser, AuthzAttributes, Decision } from './types.ts';

export const AUTHZ_GROUP = 'authorization.k8s.io';
export const AUTHN_GROUP = 'authentication.k8s.io';

export interface ReviewDeps {
  authorizer: Authorizer;
  rbac: RbacAuthorizer;
  authenticator: BearerAuthenticator;
}

type Body = Record<string, unknown>;
type Reviewer = (deps: ReviewDeps, r: ResourceRequest, body: Body) => Body;

const REVIEWERS: Record<string, Reviewer> = {
  [`${AUTHZ_GROUP}/selfsubjectaccessreviews`]: (d, r, body) => accessReview(d, r.user, body, 'SelfSubjectAccessReview'),
  [`${AUTHZ_GROUP}/subjectaccessreviews`]: (d, _r, body) => subjectAccessReview(d, body, 'SubjectAccessReview'),
  [`${AUTHZ_GROUP}/localsubjectaccessreviews`]: (d, r, body) => localSubjectAccessReview(d, r, body),
  [`${AUTHZ_GROUP}/selfsubjectrulesreviews`]: (d, r, body) => rulesReview(d, r.user, body),
  [`${AUTHN_GROUP}/selfsubjectreviews`]: (_d, r, body) => ({ ...body, status: { userInfo: userInfoJson(r.user) } }),
  [`${AUTHN_GROUP}/tokenreviews`]: (d, _r, body) => tokenReview(d, body),
};

/** A VirtualHandler for the review resources; other requests pass (undefined). */
export function reviewHandler(deps: ReviewDeps): (r: ResourceRequest) => Promise<number> | undefined {
  return (r) => {
    const review = REVIEWERS[`${r.rt.group}/${r.rt.plural}`];
    if (!review) return undefined;
    if (r.info.verb !== 'create' || r.info.name || r.info.subresource) {
      return Promise.reject(errors.methodNotAllowed('the server does not allow this method on the requested resource'));
    }
    return (async () => {
      const body = decodeObject(await readBody(r.req), r.req.headers['content-type']);
      checkTypeMeta(body, r.rt.group, r.rt.kind);
      const out = review(deps, r, body);
      const meta = isPlainObject(body.metadata) ? body.metadata : {};
      writeJson(r.res, 201, {
        kind: r.rt.kind,
        apiVersion: `${r.rt.group}/v1`,
        ...out,
        metadata: { ...meta, creationTimestamp: null },
      });
      return 201;
    })();
  };
}

function checkTypeMeta(body: Body, group: string, kind: string): void {
  if (body.apiVersion !== undefined && body.apiVersion !== `${group}/v1`) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${group}/v1)`,
    );
  }
  if (body.kind !== undefined && body.kind !== kind)
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind})`);
}

function spec(body: Body): Body {
  return isPlainObject(body.spec) ? body.spec : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** ValidateSelfSubjectAccessReviewSpec / ValidateSubjectAccessReviewSpec's shared part. */
function attributesCauses(s: Body): ReturnType<typeof fieldErrors.invalid>[] {
  const ra = s.resourceAttributes;
  const nra = s.nonResourceAttributes;
  if (ra != null && nra != null)
    return [
      fieldErrors.invalid(
        'spec.nonResourceAttributes',
        JSON.stringify(nra),
        'cannot be specified in combination with resourceAttributes',
      ),
    ];
  if (ra == null && nra == null)
    return [
      fieldErrors.invalid(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ];
  return [];
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom */
function attributesFrom(s: Body): AuthzAttributes {
  if (isPlainObject(s.resourceAttributes)) {
    const ra = s.resourceAttributes;
    return {
      isResourceRequest: true,
      path: '',
      verb: str(ra.verb),
      group: str(ra.group),
      version: str(ra.version),
      namespace: str(ra.namespace),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
  }
  const nra = isPlainObject(s.nonResourceAttributes) ? s.nonResourceAttributes : {};
  return { isResourceRequest: false, path: str(nra.path), verb: str(nra.verb), group: '', version: '' };
}

function statusOf(d: Decision): Body {
  return {
    allowed: d.allowed,
    ...(d.reason ? { reason: d.reason } : {}),
    ...(d.evaluationError ? { evaluationError: d.evaluationError } : {}),
  };
}

function invalid(kind: string, causes: ReturnType<typeof fieldErrors.invalid>[]): StatusError {
  return errors.invalid(kind, AUTHZ_GROUP, '', causes);
}

function accessReview(d: ReviewDeps, user: UserInfo, body: Body, kind: string): Body {
  const causes = attributesCauses(spec(body));
  if (causes.length > 0) throw invalid(kind, causes);
  return { ...body, status: statusOf(d.authorizer.authorize(user, attributesFrom(spec(body)))) };
}

function subjectFrom(s: Body): AuthUser {
  const extra = isPlainObject(s.extra)
    ? Object.fromEntries(Object.entries(s.extra).map(([k, v]) => [k, strings(v)]))
    : undefined;
  return {
    username: str(s.user),
    groups: strings(s.groups),
    ...(str(s.uid) ? { uid: str(s.uid) } : {}),
    ...(extra ? { extra } : {}),
  };
}

function subjectAccessReview(d: ReviewDeps, body: Body, kind: string): Body {
  const s = spec(body);
  const causes = attributesCauses(s);
  if (!str(s.user) && strings(s.groups).length === 0)
    causes.push(fieldErrors.invalid('spec.user', str(s.user), 'at least one of user or group must be specified'));
  if (causes.length > 0) throw invalid(kind, causes);
  return { ...body, status: statusOf(d.authorizer.authorize(subjectFrom(s), attributesFrom(s))) };
}

function localSubjectAccessReview(d: ReviewDeps, r: ResourceRequest, body: Body): Body {
  const s = spec(body);
  if (s.nonResourceAttributes != null)
    throw invalid('LocalSubjectAccessReview', [
      fieldErrors.invalid(
        'spec.nonResourceAttributes',
        JSON.stringify(s.nonResourceAttributes),
        'disallowed on this kind of request',
      ),
    ]);
  const ns = r.info.namespace ?? '';
  const raNs = isPlainObject(s.resourceAttributes) ? str(s.resourceAttributes.namespace) : '';
  if (s.resourceAttributes != null && raNs !== ns)
    throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
  return subjectAccessReview(d, body, 'LocalSubjectAccessReview');
}

function rulesReview(d: ReviewDeps, user: UserInfo, body: Body): Body {
  const namespace = str(spec(body).namespace);
  if (!namespace) throw errors.badRequest('no namespace on request');
  const { rules, errors: errs } = d.rbac.rulesFor(user, namespace);
  const resourceRules = rules
    .filter((r) => (r.resources ?? []).length > 0)
    .map((r) => ({
      verbs: r.verbs ?? [],
      ...(r.apiGroups?.length ? { apiGroups: r.apiGroups } : {}),
      resources: r.resources,
      ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    }));
  const nonResourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length > 0)
    .map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs }));
  const status: Body = { resourceRules, nonResourceRules, incomplete: errs.length > 0 };
  if (errs.length > 0) status.evaluationError = aggregateMessage(errs);
  return { ...body, status };
}

export function userInfoJson(u: AuthUser): Body {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length ? { groups: u.groups } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
  };
}

function tokenReview(d: ReviewDeps, body: Body): Body {
  const s = spec(body);
  const token = str(s.token);
  if (!token) throw errors.badRequest('token is required for TokenReview in authentication.k8s.io');
  const audiences = strings(s.audiences);
  const check = d.authenticator.review(token, audiences);
  const status: Body = check.user
    ? {
        authenticated: true,
        user: userInfoJson(check.user),
        ...(check.audiences ? { audiences: check.audiences } : {}),
      }
    : { user: {}, ...(check.error ? { error: check.error } : {}) };
  return { ...body, status };
}

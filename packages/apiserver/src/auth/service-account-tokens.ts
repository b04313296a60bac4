// ServiceAccount tokens as kube-apiserver's TokenRequest issues them: signed JWTs with kube's claims,
// authenticating as system:serviceaccount:<ns>:<name>. A token stops working when it expires, when its
// ServiceAccount (or the Pod/Secret/Node it is bound to) is deleted, or is recreated with a new uid.
import { randomUUID } from 'node:crypto';
import { errors } from '../errors.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import { JwtError, type JwtKey, looksLikeJwt, signJwt, verifyJwt } from './jwt.ts';
import { type AuthUser, GROUP_AUTHENTICATED, serviceAccountGroups, serviceAccountUsername } from './types.ts';

export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** TokenRequestSpec defaults: one hour; validation allows 10 minutes to 2^32 seconds */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
const LEEWAY_SECONDS = 60;
const CACHE_LIMIT = 10_000;

export interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface MintRequest {
  namespace: string;
  name: string;
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: BoundObjectRef | null;
}

interface Ref {
  name: string;
  uid: string;
}

interface KubeClaims {
  namespace: string;
  serviceaccount: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
}

/** The claims the server signs, in the order kube's go-jose serializes them. */
export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': KubeClaims;
  nbf: number;
  sub: string;
}

/** Result of checking a token: the user, or why not; `undefined` from review() means "not ours". */
export interface TokenCheck {
  user?: AuthUser;
  audiences?: string[];
  error?: string;
}

const BOUND_KINDS: Record<
  string,
  { storageKey: string; resource: string; claim: 'pod' | 'secret' | 'node'; namespaced: boolean }
> = {
  Pod: { storageKey: '/pods', resource: 'pods', claim: 'pod', namespaced: true },
  Secret: { storageKey: '/secrets', resource: 'secrets', claim: 'secret', namespaced: true },
  Node: { storageKey: '/nodes', resource: 'nodes', claim: 'node', namespaced: false },
};

export class ServiceAccountTokens {
  private readonly verified = new Map<string, ServiceAccountClaims>();

  constructor(
    private readonly store: ObjectStore,
    private readonly key: JwtKey,
    readonly issuer = DEFAULT_ISSUER,
    /** what the API server itself accepts (kube: --api-audiences, defaulting to the issuer) */
    readonly apiAudiences: string[] = [issuer],
  ) {}

  /** Signs a token for an existing ServiceAccount; throws the StatusError kube's TokenRequest REST would. */
  mint(req: MintRequest, now = new Date()): { token: string; claims: ServiceAccountClaims } {
    const sa = this.store.get('/serviceaccounts', req.namespace, req.name);
    if (!sa) throw errors.notFound('serviceaccounts', '', req.name);
    const kube: KubeClaims = {
      namespace: req.namespace,
      serviceaccount: { name: req.name, uid: sa.metadata.uid ?? '' },
    };
    const ref = req.boundObjectRef;
    if (ref) {
      const gv = ref.apiVersion ?? '';
      const bound = gv === 'v1' ? BOUND_KINDS[ref.kind ?? ''] : undefined;
      if (!bound)
        throw errors.badRequest(
          `cannot bind token for serviceaccount "${req.name}" to object of type ${gv.includes('/') ? gv : `/${gv}`}, Kind=${ref.kind ?? ''}`,
        );
      const obj = this.store.get(bound.storageKey, bound.namespaced ? req.namespace : undefined, ref.name ?? '');
      if (!obj) throw errors.notFound(bound.resource, '', ref.name ?? '');
      if (ref.uid && ref.uid !== obj.metadata.uid) {
        throw errors.conflict(
          ref.kind!,
          '',
          ref.name ?? '',
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      kube[bound.claim] = { name: obj.metadata.name!, uid: obj.metadata.uid ?? '' };
    }
    const iat = Math.floor(now.getTime() / 1000);
    const claims: ServiceAccountClaims = {
      aud: req.audiences,
      exp: iat + req.expirationSeconds,
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kube,
      nbf: iat,
      sub: serviceAccountUsername(req.namespace, req.name),
    };
    return { token: signJwt(this.key, claims as unknown as Record<string, unknown>), claims };
  }

  /** Bearer-token authentication for API requests (the API audiences). */
  authenticate(token: string): AuthUser | undefined {
    return this.review(token)?.user;
  }

  /**
   * Checks a token for `audiences` (default: the API audiences). Returns undefined for tokens that are
   * not this issuer's JWTs, so other authenticators can try them.
   */
  review(token: string, audiences: string[] = this.apiAudiences, now = Date.now()): TokenCheck | undefined {
    let claims = this.verified.get(token);
    if (!claims) {
      if (!looksLikeJwt(token)) return undefined;
      try {
        const raw = verifyJwt(this.key, token);
        if (raw.iss !== this.issuer) return undefined;
        claims = raw as unknown as ServiceAccountClaims;
      } catch (e) {
        if (e instanceof JwtError) return undefined;
        throw e;
      }
      if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    const tokenAudiences = Array.isArray(claims.aud)
      ? claims.aud
      : typeof claims.aud === 'string'
        ? [claims.aud]
        : this.apiAudiences;
    const matched = tokenAudiences.filter((a) => audiences.includes(a));
    if (matched.length === 0)
      return {
        error: `token audiences ${goStrings(tokenAudiences)} is invalid for the target audiences ${goStrings(audiences)}`,
      };
    const secs = now / 1000;
    if (typeof claims.exp === 'number' && secs > claims.exp + LEEWAY_SECONDS)
      return { error: 'service account token has expired' };
    if (typeof claims.nbf === 'number' && secs < claims.nbf - LEEWAY_SECONDS)
      return { error: 'service account token is not valid yet' };
    const k = claims['kubernetes.io'];
    if (!k?.serviceaccount?.name || !k.namespace)
      return { error: 'service account token claims are missing kubernetes.io/serviceaccount' };
    const problem =
      this.stillValid('service account', '/serviceaccounts', k.namespace, k.serviceaccount) ??
      (k.pod ? this.stillValid('pod', '/pods', k.namespace, k.pod) : undefined) ??
      (k.secret ? this.stillValid('secret', '/secrets', k.namespace, k.secret) : undefined) ??
      (k.node ? this.stillValid('node', '/nodes', undefined, k.node) : undefined);
    if (problem) return { error: problem };
    return { user: userFor(claims), audiences: matched };
  }

  private stillValid(what: string, storageKey: string, namespace: string | undefined, ref: Ref): string | undefined {
    const obj: KubeObject | undefined = this.store.get(storageKey, namespace, ref.name);
    const id = namespace ? `${namespace}/${ref.name}` : ref.name;
    if (!obj) return `${what === 'service account' ? 'serviceaccounts' : `${what}s`} "${ref.name}" not found`;
    if (obj.metadata.deletionTimestamp) return `${what} ${id} has been deleted`;
    if (obj.metadata.uid !== ref.uid) return `${what} UID (${obj.metadata.uid}) does not match claim (${ref.uid})`;
    return undefined;
  }
}

function userFor(claims: ServiceAccountClaims): AuthUser {
  const k = claims['kubernetes.io'];
  const extra: Record<string, string[]> = {};
  if (k.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
  }
  if (k.node) {
    extra['authentication.kubernetes.io/node-name'] = [k.node.name];
    extra['authentication.kubernetes.io/node-uid'] = [k.node.uid];
  }
  if (claims.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
  return {
    username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
    uid: k.serviceaccount.uid,
    groups: [...serviceAccountGroups(k.namespace), GROUP_AUTHENTICATED],
    extra,
  };
}

/** Go's %q of a []string: ["a" "b"] */
function goStrings(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

// AdmissionReview (admission.k8s.io v1 and v1beta1) as kube-apiserver sends it and expects it back: the
// request decoded and checked, and the response built from what a handler returned. Denials follow
// controller-runtime: a validator's field errors become 403 Forbidden with one cause per field (kubectl shows
// `admission webhook "<name>" denied the request: <message>`); a handler that crashes becomes 500 with the
// request's uid echoed, so kube-apiserver reports the webhook's words and applies no failurePolicy guesswork.

import type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionOperation as Operation,
  AdmissionReviewVersion as ReviewVersion,
  StatusCause,
} from '@modelplane/apimachinery';
import type { KubeObject } from '@modelplane/runtime/meta';
import jsonpatch from 'fast-json-patch';

export type {
  AdmissionOperation as Operation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReviewVersion as ReviewVersion,
  AdmissionUserInfo as UserInfo,
  GroupVersionKind,
  GroupVersionResource,
  StatusCause,
} from '@modelplane/apimachinery';

/** metav1.Status as it travels in `response.status` */
export type ResponseStatus = NonNullable<AdmissionResponse['status']>;

/** One problem a validator found; `field` is the path as kube writes it (`spec.resources.gpu.count`). */
export interface FieldError {
  field: string;
  message: string;
}

/** What a validator returns: no errors means allowed. The shape the ModelDeployment validator returns. */
export interface ValidationOutcome {
  errors?: FieldError[];
  warnings?: string[];
}

const DENIAL = Symbol('admission denial');
const MUTATION = Symbol('admission mutation');

/** An explicit refusal from any handler, with the HTTP-style code kube should report. */
export interface Denial {
  readonly [DENIAL]: true;
  code: number;
  reason: string;
  message: string;
  causes: StatusCause[];
  warnings: string[];
}

export function deny(
  message: string,
  opts: { code?: number; reason?: string; causes?: StatusCause[]; warnings?: string[] } = {},
): Denial {
  return {
    [DENIAL]: true,
    code: opts.code ?? 403,
    reason: opts.reason ?? 'Forbidden',
    message,
    causes: opts.causes ?? [],
    warnings: opts.warnings ?? [],
  };
}

export function isDenial(v: unknown): v is Denial {
  return typeof v === 'object' && v !== null && (v as Partial<Denial>)[DENIAL] === true;
}

/** A mutator's result when it also has warnings to return (a plain object result has none). */
export interface Mutation {
  readonly [MUTATION]: true;
  object: KubeObject | undefined;
  warnings: string[];
}

export function mutated(object: KubeObject | undefined, warnings: string[] = []): Mutation {
  return { [MUTATION]: true, object, warnings };
}

function isMutation(v: unknown): v is Mutation {
  return typeof v === 'object' && v !== null && (v as Partial<Mutation>)[MUTATION] === true;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a validator written as a block with no return statement returns void
export type ValidatorResult = ValidationOutcome | Denial | undefined | void;
export type Validator<T extends KubeObject = KubeObject> = (
  req: AdmissionRequest<T>,
) => ValidatorResult | Promise<ValidatorResult>;
/** returns the object as it should be stored; the request's object is a private copy, so changing it in place and returning nothing works too */
// biome-ignore lint/suspicious/noConfusingVoidType: a mutator that changes the object in place returns void
export type MutatorResult = KubeObject | Mutation | Denial | undefined | null | void;
export type Mutator<T extends KubeObject = KubeObject> = (
  req: AdmissionRequest<T>,
) => MutatorResult | Promise<MutatorResult>;

/** A request body that is not a usable AdmissionReview; answered with code 400 as controller-runtime does. */
export class BadReview extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const OPERATIONS = new Set<Operation>(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

function gv(v: unknown, what: string, third: 'kind' | 'resource'): void {
  if (
    !isObj(v) ||
    typeof v.version !== 'string' ||
    typeof v[third] !== 'string' ||
    (v.group !== undefined && typeof v.group !== 'string')
  ) {
    throw new BadReview(`AdmissionReview request.${what} must be an object with group, version and ${third}`);
  }
  v.group ??= '';
}

/** Checks and returns the review's version and request; throws BadReview naming what is wrong. */
export function decodeAdmissionReview(body: unknown): { version: ReviewVersion; request: AdmissionRequest } {
  if (!isObj(body)) throw new BadReview('request body must be a JSON object (an AdmissionReview)');
  if (body.kind !== 'AdmissionReview')
    throw new BadReview(`expected kind AdmissionReview, got ${JSON.stringify(body.kind ?? '')}`);
  const version =
    body.apiVersion === 'admission.k8s.io/v1'
      ? 'v1'
      : body.apiVersion === 'admission.k8s.io/v1beta1'
        ? 'v1beta1'
        : undefined;
  if (!version)
    throw new BadReview(
      `unsupported AdmissionReview apiVersion ${JSON.stringify(body.apiVersion ?? '')}: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1`,
    );
  const r = body.request;
  if (!isObj(r)) throw new BadReview('AdmissionReview has no request');
  if (typeof r.uid !== 'string' || r.uid === '')
    throw new BadReview('AdmissionReview request.uid must be a non-empty string');
  if (typeof r.operation !== 'string' || !OPERATIONS.has(r.operation as Operation))
    throw new BadReview(
      `AdmissionReview request.operation ${JSON.stringify(r.operation ?? '')} is not one of CREATE, UPDATE, DELETE, CONNECT`,
    );
  gv(r.kind, 'kind', 'kind');
  gv(r.resource, 'resource', 'resource');
  for (const f of ['object', 'oldObject'] as const) {
    if (r[f] === undefined) r[f] = null;
    else if (r[f] !== null && !isObj(r[f]))
      throw new BadReview(`AdmissionReview request.${f} must be an object or null`);
  }
  if (!isObj(r.userInfo)) r.userInfo = {};
  return { version, request: r as unknown as AdmissionRequest };
}

export function encodeAdmissionReview(version: ReviewVersion, response: AdmissionResponse): Record<string, unknown> {
  return { apiVersion: `admission.k8s.io/${version}`, kind: 'AdmissionReview', response };
}

/** controller-runtime's admission.Errored: the request is refused because the webhook could not judge it. */
export function erroredResponse(uid: string, code: number, message: string): AdmissionResponse {
  const reason =
    code === 400 ? 'BadRequest' : code === 413 ? 'RequestEntityTooLarge' : code >= 500 ? 'InternalError' : '';
  return { uid, allowed: false, status: { code, ...(reason ? { reason } : {}), message } };
}

/** Go's utilerrors.Aggregate text: one message alone, several as `[a, b]`. */
export function aggregateMessage(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

function denialResponse(uid: string, d: Denial): AdmissionResponse {
  const status: ResponseStatus = { code: d.code, reason: d.reason, message: d.message };
  if (d.causes.length) status.details = { causes: d.causes };
  return { uid, allowed: false, status, ...(d.warnings.length ? { warnings: d.warnings } : {}) };
}

/** The denial for a validator's field errors: the messages as written, the fields as causes. */
export function denialFromErrors(errors: FieldError[], warnings: string[] = []): Denial {
  return deny(aggregateMessage(errors.map((e) => e.message)), {
    causes: errors.map((e) => ({ reason: 'FieldValueInvalid', field: e.field, message: e.message })),
    warnings,
  });
}

function checkWarnings(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((w) => typeof w === 'string'))
    throw new TypeError('handler returned warnings that are not a list of strings');
  return v;
}

export function validationResponse(uid: string, result: ValidatorResult): AdmissionResponse {
  if (isDenial(result)) return denialResponse(uid, result);
  const outcome = (result ?? {}) as ValidationOutcome;
  if (!isObj(outcome))
    throw new TypeError(`validator returned ${typeof outcome}, expected { errors, warnings }, a denial or nothing`);
  const warnings = checkWarnings(outcome.warnings);
  const errors = outcome.errors ?? [];
  if (!Array.isArray(errors) || !errors.every((e) => isObj(e) && typeof e.message === 'string'))
    throw new TypeError('validator returned errors that are not a list of { field, message }');
  if (errors.length) return denialResponse(uid, denialFromErrors(errors, warnings));
  return { uid, allowed: true, ...(warnings.length ? { warnings } : {}) };
}

export type PatchOp = jsonpatch.Operation;

/** RFC 6902 operations turning `original` into `changed` (compared as JSON: undefined fields do not exist). */
export function computePatch(original: unknown, changed: unknown): PatchOp[] {
  const a = JSON.parse(JSON.stringify(original ?? null));
  const b = JSON.parse(JSON.stringify(changed ?? null));
  return jsonpatch.compare(a, b);
}

/**
 * `original` is the request's object as received; `working` is the copy the mutator was given, which
 * counts as its answer when it changed that copy in place and returned nothing.
 */
export function mutationResponse(
  uid: string,
  original: KubeObject | null,
  result: MutatorResult,
  working: KubeObject | null = null,
): AdmissionResponse {
  if (isDenial(result)) return denialResponse(uid, result);
  let object: KubeObject | undefined;
  let warnings: string[] = [];
  if (isMutation(result)) {
    object = result.object ?? working ?? undefined;
    warnings = checkWarnings(result.warnings);
  } else if (result !== undefined && result !== null) {
    object = result;
  } else {
    object = working ?? undefined;
  }
  const base: AdmissionResponse = { uid, allowed: true, ...(warnings.length ? { warnings } : {}) };
  if (object === undefined) return base;
  if (!isObj(object))
    throw new TypeError(
      `mutator returned ${Array.isArray(object) ? 'an array' : typeof object}, expected the mutated object`,
    );
  if (original === null)
    throw new TypeError('mutator returned an object for a request without one (DELETE); return nothing instead');
  const ops = computePatch(original, object);
  if (ops.length === 0) return base;
  return { ...base, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

// AdmissionReview v1 (and v1beta1) as kube-apiserver sends and checks it, and the errors it turns webhook
// answers into: a denial keeps the webhook's Status (code raised to 400 when lower, reason kept, message
// prefixed `admission webhook "<name>" denied the request: `), a broken answer is a call failure whose
// text kubectl shows after `failed calling webhook "<name>": `.
import type { GroupVersionKind, GroupVersionResource } from '@modelplane/apimachinery';
import { type StatusDetails, StatusError } from '../errors.ts';
import { warningHeader } from '../http/respond.ts';
import type { AdmissionAttributes } from '../objects/hooks.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ReviewTarget {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  subresource: string | undefined;
}

/** The `request` of an AdmissionReview: also the `request` variable of matchConditions. */
export function admissionRequest(
  uid: string,
  target: ReviewTarget,
  attrs: AdmissionAttributes,
  object: unknown,
  oldObject: unknown,
): Obj {
  const ns =
    attrs.rt.group === '' && attrs.rt.plural === 'namespaces' && attrs.operation !== 'CREATE'
      ? attrs.name
      : attrs.namespace;
  const optionsKind =
    attrs.operation === 'CREATE' ? 'CreateOptions' : attrs.operation === 'DELETE' ? 'DeleteOptions' : 'UpdateOptions';
  const user = attrs.user;
  return {
    uid,
    kind: target.kind,
    resource: target.resource,
    ...(target.subresource ? { subResource: target.subresource } : {}),
    requestKind: target.requestKind,
    requestResource: target.requestResource,
    ...(target.subresource ? { requestSubResource: target.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(ns ? { namespace: ns } : {}),
    operation: attrs.operation,
    userInfo: {
      username: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length ? { groups: user.groups } : {}),
    },
    object: object ?? null,
    oldObject: oldObject ?? null,
    dryRun: attrs.dryRun,
    options: { kind: optionsKind, apiVersion: 'meta.k8s.io/v1', ...(attrs.dryRun ? { dryRun: ['All'] } : {}) },
  };
}

export function admissionReview(reviewVersion: string, request: Obj): Obj {
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${reviewVersion}`, request };
}

export interface AdmissionResult {
  allowed: boolean;
  status: Obj | undefined;
  /** decoded JSON patch operations (mutating webhooks only) */
  patch: unknown[] | undefined;
  warnings: string[];
}

/** A webhook answer kube-apiserver refuses; the message is what follows `failed calling webhook "<name>": `. */
export class InvalidAdmissionResponse extends Error {}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** VerifyAdmissionResponse plus the patch decoding of the mutating dispatcher. */
export function verifyAdmissionResponse(
  answer: Obj,
  reviewVersion: string,
  uid: string,
  mutating: boolean,
): AdmissionResult {
  const invalid = (why: string) => new InvalidAdmissionResponse(`received invalid webhook response: ${why}`);
  const response = answer.response;
  if (!isObj(response)) throw invalid('webhook response was absent');
  if (reviewVersion === 'v1') {
    if (answer.apiVersion !== 'admission.k8s.io/v1' || answer.kind !== 'AdmissionReview') {
      throw invalid(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(answer.apiVersion ?? '')}, Kind=${String(answer.kind ?? '')}`,
      );
    }
    if (response.uid !== uid) throw invalid(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  }
  const rawPatch = typeof response.patch === 'string' ? response.patch : '';
  if (response.patch !== undefined && response.patch !== null && typeof response.patch !== 'string') {
    throw new InvalidAdmissionResponse(
      `failed to call webhook: json: cannot unmarshal ${typeof response.patch} into Go struct field AdmissionResponse.response.patch of type []uint8`,
    );
  }
  let patchType = typeof response.patchType === 'string' ? response.patchType : '';
  if (reviewVersion === 'v1beta1' && rawPatch && !patchType) patchType = 'JSONPatch';
  if (rawPatch && !patchType) throw invalid('webhook returned response.patch but not response.patchType');
  if (rawPatch && !mutating) throw invalid('validating webhook may not return response.patch');
  if (!rawPatch && patchType) throw invalid('webhook returned response.patchType but not response.patch');
  let patch: unknown[] | undefined;
  if (rawPatch) {
    if (!BASE64.test(rawPatch)) {
      const at = [...rawPatch].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
      throw new InvalidAdmissionResponse(
        `failed to call webhook: illegal base64 data at input byte ${at < 0 ? rawPatch.length : at}`,
      );
    }
    if (patchType !== 'JSONPatch') throw new InvalidAdmissionResponse(`unsupported patch type "${patchType}"`);
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(rawPatch, 'base64').toString('utf8'));
    } catch (e) {
      throw new InvalidAdmissionResponse(`received undecodable patch in webhook response: ${(e as Error).message}`);
    }
    if (!Array.isArray(decoded) || !decoded.every(isObj)) {
      throw new InvalidAdmissionResponse(
        'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      );
    }
    patch = decoded;
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((w): w is string => typeof w === 'string')
    : [];
  return {
    allowed: response.allowed === true,
    status: isObj(response.status) ? response.status : undefined,
    patch,
    // control characters would break the Warning header; kube's recorder replaces them the same way
    warnings: warnings.map((w) => w.replace(/[\u0000-\u001f\u007f]/g, ' ')),
  };
}

/** The error with the warnings collected so far attached, since kube sends them even on a failure. */
export function withWarnings(e: StatusError, warnings: string[]): StatusError {
  if (warnings.length === 0) return e;
  return new StatusError(e.code, e.reason, e.message, e.details, {
    ...(e.headers ?? {}),
    Warning: warningHeader(warnings).join(', '),
  });
}

/** webhookerrors.ToStatusErr */
export function denial(webhookName: string, status: Obj | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const s = status ?? {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const message =
    typeof s.message === 'string' && s.message
      ? `${deniedBy}: ${s.message}`
      : reason
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  const details = isObj(s.details) ? (s.details as StatusDetails) : undefined;
  return new StatusError(code, reason, message, details);
}

// From a request body to the answer, with no sockets involved (the server does the I/O). Every failure has
// an answer kube-apiserver can show: a body that cannot be read as a review at all gets HTTP 400 with a
// Status (kube prints its message); a review with a uid gets a uid-matched refusal (400 for a request this
// webhook does not handle, 500 for a handler that threw or hung), so one bad call never crashes anything.
import { type Converter, convertAll, decodeConversionReview, encodeConversionReview } from './conversion.ts';
import type { WebhookResult } from './metrics.ts';
import {
  type AdmissionRequest,
  type AdmissionResponse,
  BadReview,
  decodeAdmissionReview,
  encodeAdmissionReview,
  erroredResponse,
  type Mutator,
  mutationResponse,
  type ReviewVersion,
  type Validator,
  validationResponse,
} from './review.ts';
import {
  describeResource,
  describeRules,
  type RuleWithOperations,
  ruleCoversOperation,
  ruleCoversResource,
} from './rules.ts';

type LabelSelector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
};

/** How an admission webhook is registered: what kube sends it (rules) and how kube treats its failures. */
export interface AdmissionWebhookSpec {
  /** the webhook's name inside its configuration, a qualified name such as `vmodeldeployment.kubeairunway.ai` */
  name: string;
  rules: RuleWithOperations[];
  /** default Fail */
  failurePolicy?: 'Fail' | 'Ignore';
  /** default 10 */
  timeoutSeconds?: number;
  /** default None */
  sideEffects?: 'None' | 'NoneOnDryRun';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchConditions?: Array<{ name: string; expression: string }>;
  /** mutating webhooks only */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** default ['v1'] */
  admissionReviewVersions?: string[];
}

export interface ConversionWebhookSpec {
  /** CRD names (`plural.group`) whose conversion webhook this path serves: their caBundle is kept injected */
  crds: string[];
}

export type Route =
  | { type: 'validating'; path: string; spec: AdmissionWebhookSpec; handler: Validator<any> }
  | { type: 'mutating'; path: string; spec: AdmissionWebhookSpec; handler: Mutator<any> }
  | { type: 'conversion'; path: string; spec: ConversionWebhookSpec; handler: Converter };

export interface Dispatched {
  status: number;
  body: unknown;
  result: WebhookResult;
  /** the admission status code (200 when allowed) or the HTTP status: controller-runtime's `code` label */
  code: number;
  /** what the log line says about the request */
  info: Record<string, unknown>;
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function statusBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code, reason, message };
}

/** an answer for a body that is not a review at all: an HTTP error kube-apiserver reports with our message */
export function rejectBody(code: number, message: string): Dispatched {
  const reason = code === 413 ? 'RequestEntityTooLarge' : code === 415 ? 'UnsupportedMediaType' : 'BadRequest';
  return { status: code, body: statusBody(code, reason, message), result: 'error', code, info: { error: message } };
}

function parseJson(raw: Buffer, contentType: string): { ok: true; value: unknown } | { ok: false; answer: Dispatched } {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json')
    return { ok: false, answer: rejectBody(415, `contentType=${contentType || '(none)'}, expected application/json`) };
  if (raw.length === 0) return { ok: false, answer: rejectBody(400, 'request body is empty') };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (err) {
    return { ok: false, answer: rejectBody(400, `request body is not JSON: ${(err as Error).message}`) };
  }
}

/** the uid of a review we could not decode, if it has one, so the refusal can still be matched to it */
function uidOf(body: unknown): string | undefined {
  return isObj(body) && isObj(body.request) && typeof body.request.uid === 'string' && body.request.uid
    ? body.request.uid
    : undefined;
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function requestInfo(r: AdmissionRequest): Record<string, unknown> {
  return {
    uid: r.uid,
    operation: r.operation,
    resource: describeResource(r),
    ...(r.namespace ? { namespace: r.namespace } : {}),
    ...(r.name ? { name: r.name } : {}),
  };
}

function admissionResult(route: Route, res: AdmissionResponse, errored: boolean): WebhookResult {
  if (errored) return 'error';
  if (!res.allowed) return 'denied';
  return route.type === 'mutating' && res.patch ? 'patched' : 'allowed';
}

export async function dispatchAdmission(
  route: Extract<Route, { type: 'validating' | 'mutating' }>,
  raw: Buffer,
  contentType: string,
  timeoutMs: number,
): Promise<Dispatched> {
  const parsed = parseJson(raw, contentType);
  if (!parsed.ok) return parsed.answer;
  let version: ReviewVersion;
  let request: AdmissionRequest;
  try {
    ({ version, request } = decodeAdmissionReview(parsed.value));
  } catch (err) {
    if (!(err instanceof BadReview)) throw err;
    const uid = uidOf(parsed.value);
    if (!uid) return rejectBody(400, err.message);
    const v = isObj(parsed.value) && parsed.value.apiVersion === 'admission.k8s.io/v1beta1' ? 'v1beta1' : 'v1';
    return {
      status: 200,
      body: encodeAdmissionReview(v, erroredResponse(uid, 400, err.message)),
      result: 'error',
      code: 400,
      info: { uid, error: err.message },
    };
  }
  const info = requestInfo(request);
  const answer = (res: AdmissionResponse, errored = false): Dispatched => ({
    status: 200,
    body: encodeAdmissionReview(version, res),
    result: admissionResult(route, res, errored),
    code: res.allowed ? 200 : (res.status?.code ?? 403),
    info: { ...info, allowed: res.allowed, ...(res.status ? { message: res.status.message } : {}) },
  });
  const rules = route.spec.rules;
  if (!rules.some((rule) => ruleCoversResource(rule, request))) {
    return answer(
      erroredResponse(
        request.uid,
        400,
        `webhook ${route.spec.name} (${route.path}) handles ${describeRules(rules)}, not ${describeResource(request)}`,
      ),
      true,
    );
  }
  // an operation the webhook was not registered for (a hand-edited configuration): it has no opinion
  if (!rules.some((rule) => ruleCoversResource(rule, request) && ruleCoversOperation(rule, request.operation))) {
    return answer({ uid: request.uid, allowed: true });
  }
  try {
    if (route.type === 'validating') {
      const result = await withDeadline(
        Promise.resolve().then(() => route.handler(request)),
        timeoutMs,
        `validating webhook ${route.spec.name}`,
      );
      return answer(validationResponse(request.uid, result));
    }
    const original = request.object;
    const copy: AdmissionRequest = { ...request, object: original === null ? null : structuredClone(original) };
    const result = await withDeadline(
      Promise.resolve().then(() => route.handler(copy)),
      timeoutMs,
      `mutating webhook ${route.spec.name}`,
    );
    return answer(mutationResponse(request.uid, original, result, copy.object));
  } catch (err) {
    const message = `internal error in webhook ${route.spec.name}: ${err instanceof Error ? err.message : String(err)}`;
    return {
      ...answer(erroredResponse(request.uid, 500, message), true),
      info: { ...info, allowed: false, error: err },
    };
  }
}

export async function dispatchConversion(
  route: Extract<Route, { type: 'conversion' }>,
  raw: Buffer,
  contentType: string,
  timeoutMs: number,
): Promise<Dispatched> {
  const parsed = parseJson(raw, contentType);
  if (!parsed.ok) return parsed.answer;
  let decoded: ReturnType<typeof decodeConversionReview>;
  try {
    decoded = decodeConversionReview(parsed.value);
  } catch (err) {
    if (!(err instanceof BadReview)) throw err;
    const uid = uidOf(parsed.value);
    if (!uid) return rejectBody(400, err.message);
    const body = encodeConversionReview('v1', {
      uid,
      result: { status: 'Failure', message: err.message },
      convertedObjects: [],
    });
    return { status: 200, body, result: 'error', code: 400, info: { uid, error: err.message } };
  }
  const { version, request } = decoded;
  const info = { uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, objects: request.objects.length };
  try {
    const response = await withDeadline(
      convertAll(request, route.handler),
      timeoutMs,
      `conversion webhook ${route.path}`,
    );
    const ok = response.result.status === 'Success';
    return {
      status: 200,
      body: encodeConversionReview(version, response),
      result: ok ? 'converted' : 'error',
      code: ok ? 200 : 500,
      info: { ...info, ...(ok ? {} : { message: response.result.message }) },
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const body = encodeConversionReview(version, {
      uid: request.uid,
      result: { status: 'Failure', message },
      convertedObjects: [],
    });
    return { status: 200, body, result: 'error', code: 500, info: { ...info, error: err } };
  }
}

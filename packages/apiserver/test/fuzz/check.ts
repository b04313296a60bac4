// What every response must satisfy: it arrives in time, carries a real HTTP status, any 4xx/5xx body is a
// well-formed Kubernetes Status whose code matches (in JSON, YAML or protobuf, as negotiated), no 5xx at all,
// 2xx bodies decode as their Content-Type says, and watch streams are newline-delimited JSON events or
// length-prefixed protobuf frames (ERROR events being Status objects too).
import { STATUS_CODES } from 'node:http';
import { decodeBody, decodeProtobufWatch, mediaTypeOf } from './decode.ts';
import type { Outcome } from './http.ts';

/** what kube-apiserver writes bodies in */
const BODY_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export interface Verdict {
  /** problems that make the request a finding; empty when the response is acceptable */
  problems: string[];
  /** the HTTP status, or a pseudo-status for outcomes without one */
  code: number | 'timeout' | 'reset' | 'unsendable';
  /** the server's message, for grouping findings */
  message: string;
}

/** problems with a value that must be a Status for HTTP status `code` */
/**
 * kube-apiserver's answers that are plain Go errors from its storage layer (500, no reason), which the
 * embedded server reproduces on purpose (docs/apiserver.md): not findings.
 */
const KUBE_STORAGE_ERRORS = ['resourceVersion should not be set on objects to be created'];

const isKubeStorageError = (s: { code?: unknown; message?: unknown }) =>
  s.code === 500 && KUBE_STORAGE_ERRORS.includes(String(s.message));

export function statusProblems(value: unknown, code: number): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`error body is not a JSON object: ${JSON.stringify(value)?.slice(0, 80)}`];
  const s = value as Record<string, unknown>;
  const out: string[] = [];
  if (s.kind !== 'Status') out.push(`error body kind is ${JSON.stringify(s.kind)}, want "Status"`);
  if (s.apiVersion !== 'v1') out.push(`error body apiVersion is ${JSON.stringify(s.apiVersion)}, want "v1"`);
  if (s.status !== 'Failure') out.push(`error body status is ${JSON.stringify(s.status)}, want "Failure"`);
  if (typeof s.code !== 'number' || s.code !== code)
    out.push(`error body code is ${JSON.stringify(s.code)}, want ${code}`);
  if ((typeof s.reason !== 'string' || s.reason === '') && !isKubeStorageError(s)) out.push('error body has no reason');
  if (typeof s.message !== 'string' || s.message === '') out.push('error body has no message');
  return out;
}

function parseJson(buf: Buffer): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(buf.toString('utf8')) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

function eventProblems(ev: { type?: unknown; object?: Record<string, unknown> }): {
  problems: string[];
  message: string;
} {
  const problems: string[] = [];
  let message = '';
  if (!['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'].includes(String(ev.type)))
    problems.push(`watch event type ${JSON.stringify(ev.type)}`);
  if (!ev.object || typeof ev.object !== 'object') problems.push('watch event without an object');
  if (ev.type === 'ERROR') {
    const code = typeof ev.object?.code === 'number' ? ev.object.code : 0;
    message = String(ev.object?.message ?? '');
    problems.push(...statusProblems(ev.object, code).map((p) => `watch ERROR event: ${p}`));
    if (code >= 500) problems.push(`watch ERROR event with code ${code}: ${message}`);
  }
  return { problems, message };
}

function protobufWatchProblems(body: Buffer, cutOff: boolean): { problems: string[]; message: string } {
  const { events, problems } = decodeProtobufWatch(body, cutOff);
  let message = '';
  for (const ev of events) {
    const e = eventProblems(ev);
    problems.push(...e.problems);
    message ||= e.message;
  }
  return { problems, message };
}

function watchProblems(body: Buffer, cutOff: boolean): { problems: string[]; message: string } {
  const lines = body.toString('utf8').split('\n');
  // a stream we cut off may end mid-line; a stream the server ended must end with a newline
  const last = lines.pop();
  const problems: string[] = [];
  if (!cutOff && last !== '')
    problems.push(`watch stream ended without a trailing newline: ${JSON.stringify(last?.slice(0, 80))}`);
  let message = '';
  for (const line of lines) {
    const parsed = parseJson(Buffer.from(line));
    if (!parsed.ok) {
      problems.push(`watch event is not JSON (${parsed.error}): ${line.slice(0, 80)}`);
      continue;
    }
    const e = eventProblems(parsed.value as { type?: unknown; object?: Record<string, unknown> });
    problems.push(...e.problems);
    message ||= e.message;
  }
  return { problems, message };
}

export function judge(method: string, stream: boolean, o: Outcome, timeoutMs: number, expect?: number[]): Verdict {
  if (o.kind === 'unsendable') return { problems: [], code: 'unsendable', message: o.message };
  if (o.kind === 'timeout')
    return {
      problems: [`no ${o.phase === 'headers' ? 'response' : 'complete response body'} within ${timeoutMs} ms`],
      code: 'timeout',
      message: '',
    };
  if (o.kind === 'error')
    return { problems: [`connection failed without a response: ${o.message}`], code: 'reset', message: o.message };
  const problems: string[] = [];
  const code = o.status;
  if (!Number.isInteger(code) || code < 100 || code > 599 || !STATUS_CODES[code])
    problems.push(`invalid HTTP status ${code}`);
  const contentType = String(o.headers['content-type'] ?? '');
  let message = '';
  const type = mediaTypeOf(contentType);
  if (code >= 400 && method !== 'HEAD') {
    const parsed = decodeBody(o.body, contentType);
    if (!parsed.ok)
      problems.push(
        `error body does not decode as ${type || 'JSON'} (${parsed.error}): ${o.body.toString('utf8').slice(0, 120)}`,
      );
    else {
      message = String((parsed.value as { message?: unknown })?.message ?? '');
      problems.push(...statusProblems(parsed.value, code));
    }
    if (!BODY_TYPES.includes(type)) problems.push(`error Content-Type is ${JSON.stringify(contentType)}`);
  }
  // (a 5xx is a finding unless the request was built to get exactly that, e.g. a 504 for a body too slow)
  if (code >= 500 && !expect?.includes(code) && !isKubeStorageError({ code, message }))
    problems.push(`server error ${code}: ${message || o.body.toString('utf8').slice(0, 200)}`);
  else if (expect !== undefined && !expect.includes(code))
    problems.push(`expected ${expect.join(' or ')}, got ${code}`);
  if (code >= 200 && code < 300 && method !== 'HEAD') {
    // a request the fuzzer sent as a watch may be answered as a list (`watch=0`), which is chunked too when large
    if (stream && code === 200 && !o.headers['content-length'] && !isListAnswer(o.body, o.cutOff, type)) {
      const w =
        type === 'application/vnd.kubernetes.protobuf'
          ? protobufWatchProblems(o.body, o.cutOff)
          : type === 'application/json'
            ? watchProblems(o.body, o.cutOff)
            : { problems: [`watch Content-Type is ${JSON.stringify(contentType)}`], message: '' };
      problems.push(...w.problems);
      message = w.message;
    } else if (BODY_TYPES.includes(type)) {
      const parsed = decodeBody(o.body, contentType);
      if (!parsed.ok) problems.push(`2xx body does not decode as ${type} (${parsed.error})`);
    }
  }
  return { problems, code, message };
}

/** a whole JSON list (`kind: …List`), not a stream of watch events */
function isListAnswer(body: Buffer, cutOff: boolean, type: string): boolean {
  if (cutOff || type !== 'application/json') return false;
  const parsed = parseJson(body);
  const kind = parsed.ok ? (parsed.value as { kind?: unknown } | null)?.kind : undefined;
  return typeof kind === 'string' && kind.endsWith('List');
}

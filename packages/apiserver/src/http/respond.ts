// Response writing: JSON bodies, bodies in the negotiated format (JSON, YAML, protobuf), Kubernetes Status
// errors and `Warning` headers.
import type { ServerResponse } from 'node:http';
import { errors, StatusError } from '../errors.ts';
import { MEDIA_TYPES, type Negotiated, negotiateErrorOutput } from './negotiate.ts';
import { encodeKubeProtobuf } from './protobuf/encode.ts';
import { toYaml } from './yaml-output.ts';

export function warningHeader(warnings: string[]): string[] {
  // RFC 7234 warn-code 299, agent "-", quoted text (kube escapes quotes and backslashes)
  return [...new Set(warnings)].map((w) => `299 - "${headerSafe(w).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
}

/** Header values may hold only visible ASCII: escape everything else as \uXXXX. */
function headerSafe(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function writeJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
  contentType = 'application/json',
): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function toApiError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return errors.internal(message);
}

/**
 * Writes an API object (or, for JSON, its already serialised text) in the negotiated format. The common case,
 * compact JSON, is writeJson unchanged.
 */
export function writeNegotiated(
  res: ServerResponse,
  out: Negotiated,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  if (out.format === 'json' && !out.pretty) {
    writeJson(res, code, body, headers);
    return;
  }
  const value = typeof body === 'string' ? JSON.parse(body) : body;
  if (out.format === 'json') writeJson(res, code, JSON.stringify(value, null, 2), headers);
  else if (out.format === 'yaml') writeBytes(res, code, Buffer.from(toYaml(value)), MEDIA_TYPES.yaml, headers);
  else writeBytes(res, code, encodeKubeProtobuf(value as Record<string, unknown>), MEDIA_TYPES.protobuf, headers);
}

function writeBytes(
  res: ServerResponse,
  code: number,
  data: Buffer,
  contentType: string,
  headers: Record<string, string | string[]>,
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': data.length,
    ...headers,
  });
  res.end(data);
}

/**
 * A Status error in the format the request's Accept asks for (any media type, no conversions). When none fits,
 * kube-apiserver falls back to indented JSON (responsewriters.WriteRawJSON), as it does for the 406 itself.
 */
export function writeError(res: ServerResponse, err: unknown, warnings: string[] = []): number {
  const e = toApiError(err);
  const headers: Record<string, string | string[]> = { ...(e.headers ?? {}) };
  if (warnings.length) headers.Warning = warningHeader(warnings);
  const req = res.req;
  const accept = req?.headers.accept;
  const rawUrl = req?.url ?? '';
  const q = rawUrl.indexOf('?');
  const out =
    accept || q >= 0 || req?.headers['user-agent']
      ? negotiateErrorOutput(accept, req?.headers['user-agent'], q >= 0 ? rawUrl.slice(q + 1) : undefined)
      : undefined;
  if (out) writeNegotiated(res, out, e.code, e.toStatus(), headers);
  else if (accept) writeJson(res, e.code, JSON.stringify(e.toStatus(), null, 2), headers);
  else writeJson(res, e.code, e.toStatus(), headers);
  return e.code;
}

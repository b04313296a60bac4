// Response writing: JSON bodies, Kubernetes Status errors and `Warning` headers.
import type { ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.ts';

export function warningHeader(warnings: string[]): string[] {
  // RFC 7234 warn-code 299, agent "-", quoted text (kube escapes quotes and backslashes)
  return [...new Set(warnings)].map((w) => `299 - "${headerSafe(w).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
}

/** Header values may hold only visible ASCII: escape everything else as \uXXXX. */
function headerSafe(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function writeJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string | string[]> = {}, contentType = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return errors.internal(message);
}

export function writeError(res: ServerResponse, err: unknown, warnings: string[] = []): number {
  const e = toApiError(err);
  const headers: Record<string, string | string[]> = { ...(e.headers ?? {}) };
  if (warnings.length) headers.Warning = warningHeader(warnings);
  writeJson(res, e.code, e.toStatus(), headers);
  return e.code;
}

// Query-parameter decoding shared by the resource handlers, with kube-apiserver's error messages.
import { errors } from '../errors.ts';
import type { FieldValidation } from '../objects/context.ts';

export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`invalid value for ${name}: "${v}" is not an integer`);
  return Number(v);
}

export function dryRunParam(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw errors.badRequest(`Invalid dryRun value: "${v}": supported values: "All"`);
  return values.length > 0;
}

export function fieldValidationParam(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  const norm = v.toLowerCase();
  if (norm === 'strict') return 'Strict';
  if (norm === 'warn') return 'Warn';
  if (norm === 'ignore') return 'Ignore';
  throw errors.badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${v}"`);
}

/** resourceVersion for list/watch: a non-negative integer or empty */
export function rvParam(q: URLSearchParams): number | undefined {
  const v = q.get('resourceVersion');
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw errors.badRequest(`invalid resource version: "${v}"`);
  return Number(v);
}

/** fieldManager must be set for apply and be at most 128 printable characters */
export function fieldManagerParam(q: URLSearchParams, userAgent: string | undefined, required: boolean): string | undefined {
  const v = q.get('fieldManager');
  if (v === null || v === '') {
    if (required) throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [{ field: 'fieldManager', reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' }]);
    return defaultFieldManager(userAgent);
  }
  if (v.length > 128) throw errors.badRequest(`fieldManager: Too long: may not be more than 128 bytes`);
  if (!/^[\x20-\x7e]+$/.test(v)) throw errors.badRequest(`fieldManager: Invalid value: "${v}": must only contain printable characters`);
  return v;
}

/** kube-apiserver derives a manager from the User-Agent's program name when none is given */
function defaultFieldManager(userAgent: string | undefined): string {
  const prog = (userAgent ?? 'unknown').split('/')[0]!.trim();
  return prog.slice(0, 128) || 'unknown';
}

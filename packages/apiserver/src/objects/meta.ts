// Small object helpers shared by the write paths.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../types.ts';

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function kubeTime(date = new Date()): string {
  const iso = date.toISOString();
  // toISOString always ends in `.sssZ`
  return `${iso.slice(0, -5)}Z`;
}

/** RFC 3339 with microseconds, as metav1.MicroTime serialises (events, leases). */
export function kubeMicroTime(date = new Date()): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

export function newUid(): string {
  return randomUUID();
}

/** generateName suffix: 5 characters from kube's alphabet (no vowels, no confusable digits). */
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
export function generateNameSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}

/** Everything except metadata and (optionally) status: a change here bumps metadata.generation. */
export function specPartsEqual(a: KubeObject, b: KubeObject, ignoreStatus: boolean): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind' || (ignoreStatus && k === 'status')) continue;
    if (!deepEqual(a[k], b[k])) return false;
  }
  return true;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

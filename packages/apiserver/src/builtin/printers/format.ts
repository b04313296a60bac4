// Shared cell helpers for the built-in printers: kube's duration and timestamp formatting, and loose
// accessors over stored objects, which are plain JSON in which missing fields read as Go zero values.
import { humanDuration } from '@modelplane/apimachinery';
import { labelSelectorFromObject } from '../../selectors/labels.ts';
import type { KubeObject } from '../../types.ts';

export type Obj = Record<string, unknown>;
export const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
export const int = (v: unknown): number => (typeof v === 'number' ? Math.trunc(v) : 0);
export const path = (o: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((cur, k) => rec(cur)[k], o);
export const present = (v: unknown): boolean => v !== undefined && v !== null;
export const strMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(rec(v)).map(([k, x]) => [k, str(x)]));

/** translateTimestampSince: `<unknown>` for an unset time. */
export function since(ts: unknown, now: number): string {
  const t = typeof ts === 'string' && ts ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export function isSet(ts: unknown): boolean {
  return typeof ts === 'string' && ts !== '' && !Number.isNaN(Date.parse(ts));
}

/** IntOrString.String() */
export function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

export function containerCells(podSpec: unknown): [string, string] {
  const cs = arr(rec(podSpec).containers).map(rec);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

export function selectorString(selector: unknown): string {
  try {
    return labelSelectorFromObject(selector as never).toString();
  } catch {
    return '<invalid>';
  }
}

export const age = (o: KubeObject, now: number) => since(o.metadata.creationTimestamp, now);
export const templateSpec = (o: KubeObject) => path(o, 'spec', 'template', 'spec');

export function conditionStatus(conditions: unknown, type: string): string | undefined {
  return (
    str(
      arr(conditions)
        .map(rec)
        .find((c) => c.type === type)?.status,
    ) || undefined
  );
}

/** Load-balancer ingress points: IP, else hostname; sorted and de-duplicated (never clipped: the server prints wide). */
export function lbIngress(status: unknown): string {
  const set = new Set<string>();
  for (const ing of arr(path(status, 'loadBalancer', 'ingress')).map(rec)) {
    const v = str(ing.ip) || str(ing.hostname);
    if (v) set.add(v);
  }
  return [...set].sort().join(',');
}

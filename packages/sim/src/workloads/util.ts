// Small helpers the workload simulators share: Kubernetes timestamps, kube's hash encoding, int-or-percent
// values, condition bookkeeping and the pod predicates the controllers agree on.

import { createHash } from 'node:crypto';
import type { IntOrString, Pod, PodCondition, WorkloadCondition } from './kinds.ts';

/** metav1.Time: RFC 3339 with second precision */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function parseTime(t: string | undefined | null): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** FNV-1a, 32 bit (what kube hashes pod templates with) */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// k8s.io/apimachinery/pkg/util/rand: no vowels (no words) and no confusable characters
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: how kube turns a hash into a name suffix such as `7c5ddbdf54` */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of Buffer.from(s, 'utf8')) out += SAFE_ALPHANUMS[ch % SAFE_ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted, so equal objects hash equally */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** a stable pseudo-random hex string derived from `seed` (container and image IDs) */
export function hexDigest(seed: string, length = 64): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an int, or "N%" of `total` rounded up or down. `field` names
 * the value in the error for a malformed one.
 */
export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean, field: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value.trim());
  if (m) {
    const v = (Number(m[1]) * total) / 100;
    return roundUp ? Math.ceil(v) : Math.floor(v);
  }
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  throw new Error(`${field}: invalid value "${value}": must be an integer or a percentage (e.g. "25%")`);
}

type AnyCondition = PodCondition | WorkloadCondition;

export interface ConditionStamps {
  /** also keep or stamp `lastUpdateTime` (Deployment conditions) */
  update?: boolean;
  /** also keep or stamp `lastProbeTime` (Job conditions) */
  probe?: boolean;
}

/**
 * The condition as it should be written: `lastTransitionTime` is kept from the live condition while the
 * status is unchanged, and the other stamps while reason and message are unchanged too, so re-computing
 * a status produces the same object and costs no write.
 */
export function keepTimes<C extends AnyCondition>(
  desired: C,
  live: readonly AnyCondition[] | undefined,
  now: number,
  stamps: ConditionStamps = {},
): C {
  const prev = live?.find((c) => c.type === desired.type) as WorkloadCondition | undefined;
  const sameStatus = prev !== undefined && prev.status === desired.status;
  const unchanged = sameStatus && prev.reason === desired.reason && prev.message === desired.message;
  const out: WorkloadCondition = { ...(desired as WorkloadCondition) };
  out.lastTransitionTime = sameStatus && prev.lastTransitionTime ? prev.lastTransitionTime : kubeTime(now);
  if (stamps.update) out.lastUpdateTime = unchanged && prev.lastUpdateTime ? prev.lastUpdateTime : kubeTime(now);
  if (stamps.probe) out.lastProbeTime = unchanged && prev.lastProbeTime ? prev.lastProbeTime : kubeTime(now);
  return out as C;
}

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

export function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** controller.FilterActivePods: not finished and not being deleted */
export function isActive(pod: Pod): boolean {
  return !isTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** Ready for at least minReadySeconds; otherwise the ms until it will be (Infinity: not ready at all) */
export function availableIn(pod: Pod, minReadySeconds: number, now: number): number {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return Number.POSITIVE_INFINITY;
  if (minReadySeconds <= 0) return 0;
  const since = parseTime(ready.lastTransitionTime) ?? now;
  return Math.max(0, since + minReadySeconds * 1000 - now);
}

/** drops undefined and zero-valued counters, as kube's `omitempty` int32 fields do */
export function omitZero<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== 0) out[k] = v;
  return out as T;
}

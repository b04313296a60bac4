// Which checks a level and version run, in which order, and how their verdicts read together
// (policy/registry.go and checks.go): for each check the newest revision not newer than the version;
// versions past the newest revision, and `latest`, use the newest; Restricted drops the Baseline checks
// its own checks supersede; checks run Baseline first, then Restricted, each sorted by check id, so that
// messages list violations in a stable order.
import { BASELINE_CHECKS, type Check, type VersionedCheck } from './checks-baseline.ts';
import { RESTRICTED_CHECKS } from './checks-restricted.ts';
import type { LevelVersion } from './levels.ts';
import type { CheckFn, PodMetaView, PodSpecView, Violation } from './pod-view.ts';

const byId = (a: Check, b: Check) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ORDERED: readonly Check[] = [...[...BASELINE_CHECKS].sort(byId), ...[...RESTRICTED_CHECKS].sort(byId)];

/** the policy version `latest` stands for: the newest revision of any check (sysctls, v1.32) */
export const MAX_POLICY_MINOR = Math.max(...ORDERED.flatMap((c) => c.versions.map((v) => v.minor)));

function revisionAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minor <= minor) found = v;
  return found;
}

const cache = new Map<string, CheckFn[]>();

/** The check functions a level and version run, in message order; none for privileged. */
export function checksFor(lv: LevelVersion): CheckFn[] {
  if (lv.level === 'privileged') return [];
  const minor = lv.version.latest ? MAX_POLICY_MINOR : Math.min(lv.version.minor, MAX_POLICY_MINOR);
  const key = `${lv.level}:${minor}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const active = ORDERED.filter((c) => c.level === 'baseline' || lv.level === 'restricted')
    .map((c) => [c, revisionAt(c, minor)] as const)
    .filter((e): e is readonly [Check, VersionedCheck] => e[1] !== undefined);
  const overridden = new Set(active.filter(([c]) => c.level === 'restricted').flatMap(([, v]) => v.overrides ?? []));
  const fns = active.filter(([c]) => !overridden.has(c.id)).map(([, v]) => v.check);
  cache.set(key, fns);
  return fns;
}

/** The violations of a pod (or pod template) under a level and version, in message order. */
export function evaluatePod(lv: LevelVersion, meta: PodMetaView, spec: PodSpecView): Violation[] {
  const out: Violation[] = [];
  for (const check of checksFor(lv)) {
    const v = check(meta, spec);
    if (v) out.push(v);
  }
  return out;
}

/** AggregateCheckResult.ForbiddenDetail(): `reason (detail), reason, …` */
export function forbiddenDetail(violations: readonly Violation[]): string {
  return violations.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
}

/** AggregateCheckResult.ForbiddenReason(): the reasons alone, for the namespace-wide summary */
export function forbiddenReason(violations: readonly Violation[]): string {
  return violations.map((v) => v.reason).join(', ');
}

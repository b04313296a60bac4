// The namespace labels PodSecurity reads (pod-security.kubernetes.io/{enforce,audit,warn}[-version]) and
// the policy they resolve to, as k8s.io/pod-security-admission/api does it: an unparsable enforce level
// means "restricted", an unparsable audit or warn level means "privileged" (those two fail open), an
// unparsable version means "latest", and the parse errors are reported alongside a usable policy.
import type { StatusCause } from '../../errors.ts';
import { fieldErrors } from '../../validation/field-errors.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';

/** A policy version: `latest`, or the checks as they stood in Kubernetes 1.<minor>. */
export type PolicyVersion = { latest: true } | { latest: false; minor: number };

export interface LevelVersion {
  level: Level;
  version: PolicyVersion;
}

export interface NamespacePolicy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
const VERSION = /^v1\.([0-9]|[1-9][0-9]*)$/;

export const LATEST: PolicyVersion = { latest: true };

export function minorVersion(minor: number): PolicyVersion {
  return { latest: false, minor };
}

/** kube-apiserver's default PodSecurityConfiguration: privileged:latest for all three modes, no exemptions. */
export const DEFAULT_POLICY: NamespacePolicy = {
  enforce: { level: 'privileged', version: LATEST },
  audit: { level: 'privileged', version: LATEST },
  warn: { level: 'privileged', version: LATEST },
};

export function versionString(v: PolicyVersion): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** `restricted:latest`, `baseline:v1.25`: how messages and audit annotations name a policy */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

export function sameVersion(a: PolicyVersion, b: PolicyVersion): boolean {
  if (a.latest || b.latest) return a.latest === b.latest;
  return a.minor === b.minor;
}

/** api.CompareLevels: -1 when a is less strict than b, 0 when equal, 1 when stricter */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

function parseLevel(value: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(value) ? (value as Level) : undefined;
}

function parseVersion(value: string): PolicyVersion | undefined {
  if (value === 'latest') return LATEST;
  const m = VERSION.exec(value);
  return m ? minorVersion(Number(m[1])) : undefined;
}

export interface ResolvedPolicy {
  policy: NamespacePolicy;
  /** one field error per unparsable label, in the order enforce, enforce-version, audit, … */
  errors: StatusCause[];
}

/**
 * api.PolicyToEvaluate: the policy a namespace's labels select, falling back to the defaults for
 * unlabelled modes. A usable policy comes back even when some labels are invalid.
 */
export function policyFromLabels(
  labels: Record<string, string> | undefined,
  defaults: NamespacePolicy = DEFAULT_POLICY,
): ResolvedPolicy {
  const policy: NamespacePolicy = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  const errors: StatusCause[] = [];
  if (!labels) return { policy, errors };
  const modes: Array<[keyof NamespacePolicy, string, string, Level]> = [
    // an invalid enforce level is enforced as the strictest one; audit and warn fail open
    ['enforce', ENFORCE_LABEL, ENFORCE_VERSION_LABEL, 'restricted'],
    ['audit', AUDIT_LABEL, AUDIT_VERSION_LABEL, 'privileged'],
    ['warn', WARN_LABEL, WARN_VERSION_LABEL, 'privileged'],
  ];
  for (const [mode, levelLabel, versionLabel, onInvalidLevel] of modes) {
    const level = labels[levelLabel];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      if (!parsed)
        errors.push(fieldErrors.invalid(labelPath(levelLabel), level, `must be one of ${LEVELS.join(', ')}`));
      policy[mode].level = parsed ?? onInvalidLevel;
    }
    const version = labels[versionLabel];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      if (!parsed) errors.push(fieldErrors.invalid(labelPath(versionLabel), version, 'must be "latest" or "v1.x"'));
      policy[mode].version = parsed ?? LATEST;
    }
  }
  return { policy, errors };
}

function labelPath(label: string): string {
  return `metadata.labels[${label}]`;
}

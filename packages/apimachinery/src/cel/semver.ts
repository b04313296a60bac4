// Kubernetes' CEL semver library: semver(), isSemver() and major/minor/patch/compareTo/isLessThan/
// isGreaterThan, with Semantic Versioning 2.0.0 precedence (pre-releases sort before the release, build
// metadata is ignored). `isSemver(s, true)` / `semver(s, true)` first normalise a leading 'v' and missing
// minor/patch parts, as kube's normalize flag does.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly prerelease: string[],
  ) {}

  cmp(other: CelSemver): -1 | 0 | 1 {
    for (const k of ['major', 'minor', 'patch'] as const) {
      if (this[k] !== other[k]) return this[k] < other[k] ? -1 : 1;
    }
    const a = this.prerelease;
    const b = other.prerelease;
    if (!a.length || !b.length) return a.length === b.length ? 0 : a.length ? -1 : 1;
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const x = a[i]!;
      const y = b[i]!;
      if (x === y) continue;
      const xn = /^\d+$/.test(x);
      const yn = /^\d+$/.test(y);
      if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
      if (xn !== yn) return xn ? -1 : 1;
      return x < y ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  equals(other: unknown): boolean {
    return other instanceof CelSemver && this.cmp(other) === 0;
  }
}

function normalize(s: string): string {
  let v = s.startsWith('v') ? s.slice(1) : s;
  const core = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(v);
  if (core) {
    const strip = (n: string | undefined) => (n === undefined ? '0' : String(BigInt(n)));
    v = `${strip(core[1])}.${strip(core[2])}.${strip(core[3])}${core[4]}`;
  }
  return v;
}

export function parseSemver(s: string, normalizeInput = false): CelSemver | undefined {
  const m = SEMVER.exec(normalizeInput ? normalize(s) : s);
  if (!m) return undefined;
  return new CelSemver(BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!), m[4] ? m[4].split('.') : []);
}

function semverOrThrow(s: string, normalizeInput = false): CelSemver {
  const v = parseSemver(s, normalizeInput);
  if (!v) throw new EvaluationError(`could not parse ${JSON.stringify(s)} as a semantic version`);
  return v;
}

export function registerSemverLibrary(env: Environment): void {
  env.registerType('kubernetes.Semver', CelSemver);
  env.registerFunction('semver(string): kubernetes.Semver', (s: string) => semverOrThrow(s));
  env.registerFunction('semver(string, bool): kubernetes.Semver', (s: string, n: boolean) => semverOrThrow(s, n));
  env.registerFunction('isSemver(string): bool', (s: string) => parseSemver(s) !== undefined);
  env.registerFunction('isSemver(string, bool): bool', (s: string, n: boolean) => parseSemver(s, n) !== undefined);
  env.registerFunction('kubernetes.Semver.major(): int', (v: CelSemver) => v.major);
  env.registerFunction('kubernetes.Semver.minor(): int', (v: CelSemver) => v.minor);
  env.registerFunction('kubernetes.Semver.patch(): int', (v: CelSemver) => v.patch);
  env.registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: CelSemver, b: CelSemver) =>
    BigInt(a.cmp(b)),
  );
  env.registerFunction(
    'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
    (a: CelSemver, b: CelSemver) => a.cmp(b) < 0,
  );
  env.registerFunction(
    'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
    (a: CelSemver, b: CelSemver) => a.cmp(b) > 0,
  );
  env.registerOperator('kubernetes.Semver == kubernetes.Semver', (a: CelSemver, b: CelSemver) => a.equals(b));
}

// Go's time.Duration.String() and time.ParseDuration ("300ms", "1.5h", "2h45m"), with its error texts: the API server's `timeout` query parameter
// and metav1.Duration fields, and duration fields of the operator's own kinds (e.g. a model source's syncInterval).

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Nanoseconds, or the error time.ParseDuration would return. */
export function parseGoDuration(s: string): { ns: bigint } | { error: string } {
  const quoted = JSON.stringify(s);
  let rest = s;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return { ns: 0n };
  if (rest === '') return { error: `time: invalid duration ${quoted}` };
  let total = 0;
  while (rest !== '') {
    const num = /^(\d*)(\.\d*)?/.exec(rest)!;
    if (num[0] === '' || num[0] === '.') return { error: `time: invalid duration ${quoted}` };
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') return { error: `time: missing unit in duration ${quoted}` };
    const scale = UNIT_NS[unit];
    if (scale === undefined) return { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    total += Number(num[0]) * scale;
    rest = rest.slice(unit.length);
  }
  if (total > 2 ** 63) return { error: `time: invalid duration ${quoted}` };
  return { ns: sign * BigInt(Math.round(total)) };
}

/** Go's time.Duration.String(): 1m20s, 5m0s, 2.5s, 300ms (as Kubernetes spells durations in messages) */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  let u = ns < 0n ? -ns : ns;
  // The digits of u % 10^prec without trailing zeros (with a leading '.'), as Go's fmtFrac prints them.
  const frac = (prec: number): string => {
    const scale = 10n ** BigInt(prec);
    const digits = String(u % scale)
      .padStart(prec, '0')
      .replace(/0+$/, '');
    u /= scale;
    return digits ? `.${digits}` : '';
  };
  if (u < 1_000_000_000n) {
    if (u < 1000n) return `${sign}${u}ns`;
    const [prec, unit] = u < 1_000_000n ? [3, 'µs'] : [6, 'ms'];
    const f = frac(prec);
    return `${sign}${u}${f}${unit}`;
  }
  const f = frac(9);
  let out = `${u % 60n}${f}s`;
  u /= 60n;
  if (u > 0n) {
    out = `${u % 60n}m${out}`;
    u /= 60n;
    if (u > 0n) out = `${u}h${out}`;
  }
  return sign + out;
}

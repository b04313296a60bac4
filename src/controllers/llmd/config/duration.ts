// GLOBAL_OPT_INTERVAL is written as a Go duration ("30s", "1m30s", "1.5m"); this reads the subset the
// autoscaler accepts: positive, made of ms/s/m/h parts (docs/autoscaling.md, "Configuration").

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)/y;

/** milliseconds, or why the text is not a usable interval */
export function parseIntervalMs(text: string): { ms: number } | { error: string } {
  const s = text.trim();
  if (s === '') return { error: 'is empty; write a duration such as "30s" or "1m"' };
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m)
      return { error: `"${s}" is not a duration (at "${s.slice(at)}"); write one such as "30s", "1m" or "1m30s"` };
    total += Number(m[1]) * (UNIT_MS[m[2]!] ?? 0);
  }
  if (!(total > 0)) return { error: `"${s}" must be greater than zero` };
  return { ms: Math.round(total) };
}

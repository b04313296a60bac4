// Derived names for generated objects (docs/kubeairunway.md, "Names"): readable parts made DNS-1123, joined with
// '-', and a hash of the inputs that identify the object, so two different inputs never share a name even
// after the readable parts are shortened to fit.
import { createHash } from 'node:crypto';

export const DNS_LABEL_MAX = 63;

/** lowercase alphanumerics and single '-', trimmed; '' when nothing is left */
export function dnsLabelChars(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** the first `length` hex digits of the sha256 of the inputs (JSON-encoded, joined by '|') */
export function hashOf(inputs: readonly unknown[], length = 8): string {
  const text = inputs.map((i) => (typeof i === 'string' ? i : JSON.stringify(i ?? null))).join('|');
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * `<part>-<part>-…-<hash>`, at most `max` characters: the longest part is shortened first, one character
 * at a time, so every part keeps as much of itself as fits.
 */
export function derivedName(
  parts: readonly string[],
  hashInputs: readonly unknown[],
  opts: { max?: number; hashLength?: number } = {},
): string {
  const max = opts.max ?? DNS_LABEL_MAX;
  const hash = hashOf(hashInputs, opts.hashLength ?? 8);
  const clean = parts.map((p) => dnsLabelChars(p) || 'part');
  const length = () => clean.reduce((n, p) => n + p.length + 1, 0) + hash.length;
  while (length() > max) {
    let longest = 0;
    for (let i = 1; i < clean.length; i++) if (clean[i]!.length > clean[longest]!.length) longest = i;
    const cut = clean[longest]!.slice(0, -1).replace(/-+$/, '');
    if (cut === clean[longest] || cut === '') clean.splice(longest, 1);
    else clean[longest] = cut;
    if (clean.length === 0) break;
  }
  return [...clean, hash].join('-');
}

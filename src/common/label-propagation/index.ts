/**
 * Label propagation from a parent AIM object to the children it creates, driven by the runtime config's
 * `labelPropagation`. A pattern is `[prefix/]name` where `*` matches any run of characters within its side of the
 * `/`: `compliance.*` + `/severity` matches `compliance.sec/severity`, and `org.example/` + `*` matches every key
 * under that prefix. Matching is a plain linear glob, never a regular expression built from user input.
 */

export interface LabelPropagationSettings {
  enabled?: boolean;
  match?: readonly string[];
}

/** An invalid `match` entry, as data; `field` is e.g. `spec.labelPropagation.match[1]`. */
export interface LabelPatternError {
  field: string;
  pattern: string;
  message: string;
}

const PREFIX_MAX = 253;
const NAME_MAX = 63;
const PATTERN_SIDE = /^[A-Za-z0-9._*-]+$/;

/** Checks every `match` entry; the returned list is empty when all are usable. */
export function validateLabelPatterns(
  match: readonly string[] | undefined,
  fieldPath = 'spec.labelPropagation.match',
): LabelPatternError[] {
  const errors: LabelPatternError[] = [];
  (match ?? []).forEach((pattern, i) => {
    const message = patternProblem(pattern);
    if (message) errors.push({ field: `${fieldPath}[${i}]`, pattern, message });
  });
  return errors;
}

function patternProblem(pattern: string): string | undefined {
  if (typeof pattern !== 'string' || pattern === '') return 'pattern must not be empty';
  const parts = pattern.split('/');
  if (parts.length > 2) return 'a label key pattern has at most one "/" (prefix/name)';
  const [first, second] = parts as [string, string | undefined];
  const sides: [string, string, number][] =
    second === undefined
      ? [['name', first, NAME_MAX]]
      : [
          ['prefix', first, PREFIX_MAX],
          ['name', second, NAME_MAX],
        ];
  for (const [label, side, max] of sides) {
    if (side === '') return `the ${label} part must not be empty`;
    if (!PATTERN_SIDE.test(side)) {
      return `the ${label} part ${JSON.stringify(side)} may contain only letters, digits, '-', '_', '.' and '*'`;
    }
    if (side.replaceAll('*', '').length > max) return `the ${label} part is longer than ${max} characters`;
  }
  return undefined;
}

/** True when key matches the pattern; an invalid pattern matches nothing. */
export function labelKeyMatches(pattern: string, key: string): boolean {
  if (patternProblem(pattern)) return false;
  const patternSlash = pattern.indexOf('/');
  const keySlash = key.indexOf('/');
  if (patternSlash < 0 !== keySlash < 0) return false;
  if (patternSlash < 0) return globMatch(pattern, key);
  return (
    globMatch(pattern.slice(0, patternSlash), key.slice(0, keySlash)) &&
    globMatch(pattern.slice(patternSlash + 1), key.slice(keySlash + 1))
  );
}

/**
 * The child's labels after propagation: every parent label whose key matches a valid pattern is added unless the
 * child already has that key (the child's own value wins). Returns a new object; inputs are not changed.
 */
export function propagatedLabels(
  parentLabels: Readonly<Record<string, string>> | undefined,
  config: LabelPropagationSettings | undefined,
  childLabels: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const result: Record<string, string> = { ...childLabels };
  if (!config?.enabled || !parentLabels) return result;
  const patterns = (config.match ?? []).filter((p) => !patternProblem(p));
  for (const [key, value] of Object.entries(parentLabels)) {
    if (Object.hasOwn(result, key)) continue;
    if (patterns.some((p) => labelKeyMatches(p, key))) result[key] = value;
  }
  return result;
}

interface LabelledObject {
  kind?: string;
  metadata?: { labels?: Record<string, string> };
  spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
}

/** Applies propagation to a planned child object; Jobs get the labels on their pod template too. Returns a copy. */
export function withPropagatedLabels<T extends object>(
  parentLabels: Readonly<Record<string, string>> | undefined,
  config: LabelPropagationSettings | undefined,
  child: T,
): T {
  const result = structuredClone(child);
  const copy = result as LabelledObject;
  copy.metadata = { ...copy.metadata, labels: propagatedLabels(parentLabels, config, copy.metadata?.labels) };
  if (copy.kind === 'Job' && copy.spec?.template) {
    const template = copy.spec.template;
    template.metadata = {
      ...template.metadata,
      labels: propagatedLabels(parentLabels, config, template.metadata?.labels),
    };
  }
  return result;
}

// Iterative `*` glob with single-star backtracking: O(len(pattern) * len(text)) worst case, no regex.
function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

// Label selectors in the API server's string syntax (`app=x,tier in (a,b),!legacy`), parsed once and
// matched locally, so label-filtered caches can answer `list({labelSelector})` exactly as the server would.

export type Operator = 'exists' | 'notexists' | 'in' | 'notin';

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

export class Selector {
  constructor(readonly requirements: Requirement[]) {}

  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    for (const r of this.requirements) {
      const has = Object.hasOwn(l, r.key);
      switch (r.op) {
        case 'exists':
          if (!has) return false;
          break;
        case 'notexists':
          if (has) return false;
          break;
        case 'in':
          if (!has || !r.values.includes(l[r.key]!)) return false;
          break;
        case 'notin':
          if (has && r.values.includes(l[r.key]!)) return false;
          break;
      }
    }
    return true;
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** canonical string form (sorted), usable as a cache key and as the `labelSelector` query parameter */
  toString(): string {
    return this.requirements
      .map((r) => {
        switch (r.op) {
          case 'exists':
            return r.key;
          case 'notexists':
            return `!${r.key}`;
          case 'in':
            return r.values.length === 1
              ? `${r.key}=${r.values[0]}`
              : `${r.key} in (${[...r.values].sort().join(',')})`;
          case 'notin':
            return r.values.length === 1
              ? `${r.key}!=${r.values[0]}`
              : `${r.key} notin (${[...r.values].sort().join(',')})`;
        }
        return '';
      })
      .sort()
      .join(',');
  }
}

const KEY_RE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function checkKey(key: string, selector: string): string {
  if (!KEY_RE.test(key)) throw new Error(`label selector "${selector}": invalid label key "${key}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!VALUE_RE.test(value) || value.length > 63)
    throw new Error(`label selector "${selector}": invalid label value "${value}"`);
  return value;
}

/** splits on commas that are not inside parentheses */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

export function parseSelector(selector: string): Selector {
  const trimmed = selector.trim();
  if (trimmed === '') return new Selector([]);
  const reqs: Requirement[] = [];
  for (const raw of splitTopLevel(trimmed)) {
    const part = raw.trim();
    if (part === '') throw new Error(`label selector "${selector}": empty requirement`);
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (set) {
      const values = set[3]!.split(',').map((v) => checkValue(v.trim(), selector));
      reqs.push({ key: checkKey(set[1]!, selector), op: set[2] === 'in' ? 'in' : 'notin', values });
      continue;
    }
    const eq = /^([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(part);
    if (eq) {
      reqs.push({
        key: checkKey(eq[1]!, selector),
        op: eq[2] === '!=' ? 'notin' : 'in',
        values: [checkValue(eq[3]!.trim(), selector)],
      });
      continue;
    }
    if (part.startsWith('!')) {
      reqs.push({ key: checkKey(part.slice(1).trim(), selector), op: 'notexists', values: [] });
      continue;
    }
    reqs.push({ key: checkKey(part, selector), op: 'exists', values: [] });
  }
  return new Selector(reqs);
}

/** converts a metav1.LabelSelector object (as found in specs) to a Selector */
export function selectorFromObject(sel: LabelSelectorObject): Selector {
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key, op: 'in', values: [value] });
  for (const e of sel.matchExpressions ?? []) {
    const op: Operator =
      e.operator === 'In' ? 'in' : e.operator === 'NotIn' ? 'notin' : e.operator === 'Exists' ? 'exists' : 'notexists';
    if ((op === 'in' || op === 'notin') && (e.values ?? []).length === 0) {
      throw new Error(
        `label selector: matchExpressions for key "${e.key}" with operator ${e.operator} needs at least one value`,
      );
    }
    reqs.push({ key: e.key, op, values: op === 'in' || op === 'notin' ? [...(e.values ?? [])] : [] });
  }
  return new Selector(reqs);
}

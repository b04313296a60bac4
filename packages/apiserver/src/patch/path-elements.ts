// Path elements of structured-merge-diff field paths: their fieldsV1 tokens (`f:spec`, `k:{"name":"x"}`,
// `v:"a"`, `i:0`), parsing, the order fieldsV1 keeps them in, and how kube prints them in conflicts.
import { compareStrings, compareValues, goJson, goQuote, isObject, type Json, valueToString } from './json-value.ts';

export type PathElement =
  | { field: string }
  /** key fields of a map-list item, sorted by field name */
  | { key: Array<[string, Json]> }
  | { value: Json }
  | { index: number };

export type FieldPath = PathElement[];

export class FieldPathError extends Error {}

// Field names repeat across objects (spec, name, value…); handing out the same token string lets
// V8 reuse its internalized form when the token becomes a fieldsV1 key, instead of hashing a fresh
// string each time. Bounded so arbitrary user keys cannot grow it without limit.
const FIELD_TOKENS = new Map<string, string>();
const MAX_FIELD_TOKENS = 4096;

/** peToken of `{ field }`. */
export function fieldToken(field: string): string {
  let tok = FIELD_TOKENS.get(field);
  if (tok === undefined) {
    tok = `f:${field}`;
    if (FIELD_TOKENS.size >= MAX_FIELD_TOKENS) FIELD_TOKENS.clear();
    FIELD_TOKENS.set(field, tok);
  }
  return tok;
}

/** The fieldsV1 key of a path element: `f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`. */
export function peToken(pe: PathElement): string {
  if ('field' in pe) return fieldToken(pe.field);
  if ('key' in pe) {
    const k = pe.key;
    if (k.length === 1) return `k:{${goQuote(k[0]![0])}:${goJson(k[0]![1])}}`;
    return `k:{${k.map(([n, v]) => `${goQuote(n)}:${goJson(v)}`).join(',')}}`;
  }
  if ('value' in pe) return `v:${goJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** Parses a fieldsV1 key; undefined for element types this version does not know (SMD drops those). */
export function parseToken(token: string): PathElement | undefined {
  if (token.length < 2) throw new FieldPathError(`key must be 2 characters long: ${token}`);
  if (token[1] !== ':') throw new FieldPathError(`missing colon: ${token}`);
  const body = token.slice(2);
  switch (token[0]) {
    case 'f':
      return { field: body };
    case 'v':
      return { value: parseJson(body, token) };
    case 'k': {
      const obj = parseJson(body, token);
      if (!isObject(obj)) throw new FieldPathError(`key path element is not an object: ${token}`);
      return { key: sortKeyFields(Object.entries(obj)) };
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new FieldPathError(`invalid index: ${token}`);
      return { index: Number(body) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string, token: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new FieldPathError(`invalid JSON in path element ${token}`);
  }
}

export function sortKeyFields(fields: Array<[string, Json]>): Array<[string, Json]> {
  return fields.length < 2 ? fields : fields.sort((a, b) => compareStrings(a[0], b[0]));
}

function kindRank(pe: PathElement): number {
  if ('field' in pe) return 0;
  if ('key' in pe) return 1;
  if ('value' in pe) return 2;
  return 3;
}

/** SMD's order of path elements: field names, then keys, then values, then indexes. */
export function comparePE(a: PathElement, b: PathElement): number {
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if ('field' in a) return compareStrings(a.field, (b as { field: string }).field);
  if ('key' in a) {
    const bk = (b as { key: Array<[string, Json]> }).key;
    for (let i = 0; ; i++) {
      if (i >= a.key.length || i >= bk.length)
        return a.key.length === bk.length ? 0 : a.key.length < bk.length ? -1 : 1;
      const c = compareStrings(a.key[i]![0], bk[i]![0]) || compareValues(a.key[i]![1], bk[i]![1]);
      if (c !== 0) return c;
    }
  }
  if ('value' in a) return compareValues(a.value, (b as { value: Json }).value);
  const bi = (b as { index: number }).index;
  return a.index === bi ? 0 : a.index < bi ? -1 : 1;
}

// kindRank by the token's first character (peToken starts every token with its kind).
const TOKEN_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/**
 * comparePE on tokens and their elements, with shortcuts for the common cases: field tokens share their
 * `f:` prefix, so they order as their names do, and single-key items with string values order by that value.
 */
export function compareTokens(aTok: string, aPe: PathElement, bTok: string, bPe: PathElement): number {
  const ka = aTok[0]!;
  const kb = bTok[0]!;
  if (ka !== kb) return TOKEN_RANK[ka]! < TOKEN_RANK[kb]! ? -1 : 1;
  if (ka === 'f') return compareStrings(aTok, bTok);
  if (ka === 'k') {
    const x = (aPe as { key: Array<[string, Json]> }).key;
    const y = (bPe as { key: Array<[string, Json]> }).key;
    if (x.length === 1 && y.length === 1 && x[0]![0] === y[0]![0]) {
      const vx = x[0]![1];
      const vy = y[0]![1];
      if (typeof vx === 'string' && typeof vy === 'string') return compareStrings(vx, vy);
    }
  }
  return comparePE(aPe, bPe);
}

/** A path element as kube prints it in conflicts: `.spec`, `[name="x"]`, `[=v]`, `[0]`. */
export function peString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${pe.key.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
  if ('value' in pe) return `[=${valueToString(pe.value)}]`;
  return `[${pe.index}]`;
}

export function pathString(path: FieldPath): string {
  return path.map(peString).join('');
}

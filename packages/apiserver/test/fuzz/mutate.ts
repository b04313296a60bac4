// Mutations of a valid object: type flips, nulls, removed fields, hostile strings, out-of-range numbers,
// invalid metadata, wrong type meta, huge values and raw JSON splices (deep nesting, number literals
// JSON.stringify cannot write). A mutated document remembers what was done to it, for the report.
import type { Prng } from './prng.ts';
import {
  deepJsonText,
  INVALID_LABEL_KEYS,
  INVALID_LABEL_VALUES,
  INVALID_NAMES,
  type Json,
  ODD_NUMBERS,
  RAW_NUMBER_TEXTS,
  randomJson,
  randomString,
  typeFlip,
  UNICODE_STRINGS,
} from './values.ts';

type Obj = Record<string, unknown>;
type Path = (string | number)[];

/** A JSON document under construction: a value plus raw-text splices applied when it is serialized. */
export class Doc {
  readonly notes: string[] = [];
  private readonly splices = new Map<string, string>();

  constructor(public value: unknown) {}

  /** a placeholder value that serializes as `raw` (which need not be valid JSON) */
  splice(raw: string): string {
    const marker = `\u0001splice${this.splices.size}\u0001`;
    this.splices.set(marker, raw);
    return marker;
  }

  toJson(): string {
    let text = JSON.stringify(this.value) ?? 'null';
    for (const [marker, raw] of this.splices) text = text.replace(JSON.stringify(marker), () => raw);
    return text;
  }

  get hasSplices(): boolean {
    return this.splices.size > 0;
  }
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** every path in the value (containers included), at most `limit` */
export function allPaths(v: unknown, limit = 400): Path[] {
  const out: Path[] = [];
  const walk = (x: unknown, path: Path) => {
    if (out.length >= limit) return;
    if (path.length) out.push(path);
    if (Array.isArray(x)) for (let i = 0; i < x.length; i++) walk(x[i], [...path, i]);
    else if (isObj(x)) for (const k of Object.keys(x)) walk(x[k], [...path, k]);
  };
  walk(v, []);
  return out;
}

export function getAt(root: unknown, path: Path): unknown {
  let x: unknown = root;
  for (const k of path) x = (x as Record<string | number, unknown>)?.[k];
  return x;
}

export function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  if (parent && typeof parent === 'object') parent[path[path.length - 1]!] = value;
}

function removeAt(root: unknown, path: Path): void {
  const parent = getAt(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else if (isObj(parent)) delete parent[key as string];
}

const fmt = (path: Path) => path.map(String).join('.');

/** a random path in the document, or undefined when it has none left */
function pickPath(p: Prng, d: Doc, filter: (path: Path) => boolean = () => true): Path | undefined {
  const paths = allPaths(d.value).filter(filter);
  return paths.length ? p.pick(paths) : undefined;
}

type Mutation = (p: Prng, d: Doc) => void;

/**
 * Field names a JavaScript object already answers to. `__proto__` must be refused cleanly; the inherited
 * names are legitimate field names (a ConfigMap key "constructor") that must be served like any other.
 */
const HOSTILE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

/** each mutation edits d.value in place and appends a note */
const mutations: [number, Mutation][] = [
  [
    6,
    (p, d) => {
      const path = pickPath(p, d);
      if (!path) return;
      setAt(d.value, path, typeFlip(p, getAt(d.value, path)));
      d.notes.push(`type flip at ${fmt(path)}`);
    },
  ],
  [
    4,
    (p, d) => {
      const path = pickPath(p, d);
      if (!path) return;
      setAt(d.value, path, null);
      d.notes.push(`null at ${fmt(path)}`);
    },
  ],
  [
    4,
    (p, d) => {
      const path = pickPath(p, d);
      if (!path) return;
      removeAt(d.value, path);
      d.notes.push(`removed ${fmt(path)}`);
    },
  ],
  [
    4,
    (p, d) => {
      const strings = allPaths(d.value).filter((path) => typeof getAt(d.value, path) === 'string');
      if (!strings.length) return;
      const path = p.pick(strings);
      const s = p.pick(UNICODE_STRINGS);
      setAt(d.value, path, s);
      d.notes.push(`string ${JSON.stringify(s.slice(0, 20))} at ${fmt(path)}`);
    },
  ],
  [
    4,
    (p, d) => {
      const nums = allPaths(d.value).filter((path) => typeof getAt(d.value, path) === 'number');
      const path = nums.length ? p.pick(nums) : ['spec', 'replicas'];
      if (p.chance(0.5)) {
        const raw = p.pick(RAW_NUMBER_TEXTS);
        setAt(d.value, path, d.splice(raw));
        d.notes.push(`raw number ${raw} at ${fmt(path)}`);
      } else {
        const n = p.pick(ODD_NUMBERS);
        setAt(d.value, path, n);
        d.notes.push(`number ${n} at ${fmt(path)}`);
      }
    },
  ],
  [
    3,
    (p, d) => {
      const containers = allPaths(d.value).filter((path) => isObj(getAt(d.value, path)));
      const target = containers.length ? p.pick(containers) : [];
      const key = p.chance(0.7) ? p.string(p.range(1, 10), 'abcdefghij') : randomString(p);
      const parent = target.length ? getAt(d.value, target) : d.value;
      if (isObj(parent)) parent[key] = randomJson(p);
      d.notes.push(`unknown field ${JSON.stringify(key.slice(0, 20))} under ${fmt(target) || '<root>'}`);
    },
  ],
  [
    1,
    (p, d) => {
      const containers = allPaths(d.value).filter((path) => isObj(getAt(d.value, path)));
      const target = containers.length && p.chance(0.8) ? p.pick(containers) : [];
      const parent = target.length ? getAt(d.value, target) : d.value;
      const key = p.pick(HOSTILE_KEYS);
      // (an assignment would set the prototype; JSON.parse, like this, makes it a plain own field)
      if (isObj(parent))
        Object.defineProperty(parent, key, {
          value: p.chance(0.5) ? { polluted: 'yes', name: 'evil' } : randomJson(p, 2),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      d.notes.push(`field ${JSON.stringify(key)} under ${fmt(target) || '<root>'}`);
    },
  ],
  [4, (p, d) => mutateMetadata(p, d)],
  [
    3,
    (p, d) => {
      const root = d.value as Obj;
      const choice = p.int(6);
      if (choice === 0) root.kind = p.pick(['Pod', 'ConfigMap', 'Gadget', 'Status', 'List', '', 'nope']);
      else if (choice === 1)
        root.apiVersion = p.pick(['v1', 'apps/v1', 'v2', 'fuzz.modelplane.dev/v9', '/v1', 'a/b/c', '', 'apps/']);
      else if (choice === 2) delete root.kind;
      else if (choice === 3) delete root.apiVersion;
      else if (choice === 4) root.kind = typeFlip(p, root.kind);
      else root.apiVersion = typeFlip(p, root.apiVersion);
      d.notes.push(`type meta → ${JSON.stringify({ apiVersion: root.apiVersion, kind: root.kind })}`);
    },
  ],
  [
    2,
    (p, d) => {
      const path = pickPath(p, d) ?? ['spec'];
      const n = p.pick([500, 1000, 10_000, 12_000]);
      setAt(d.value, path, d.splice(deepJsonText(n, p.chance(0.5) ? 'array' : 'object')));
      d.notes.push(`${n} levels of nesting at ${fmt(path)}`);
    },
  ],
  [
    2,
    (p, d) => {
      const path = p.pick([
        ...allPaths(d.value).filter((x) => typeof getAt(d.value, x) === 'string'),
        ['metadata', 'annotations', 'huge'],
      ]);
      const size = p.pick([300 * 1024, 1024 * 1024, 2 * 1024 * 1024 + 512 * 1024]);
      setAt(d.value, path, 'h'.repeat(size));
      d.notes.push(`${size}-byte string at ${fmt(path)}`);
    },
  ],
  [
    1,
    (p, d) => {
      const arrays = allPaths(d.value).filter((path) => Array.isArray(getAt(d.value, path)));
      if (!arrays.length) return;
      const path = p.pick(arrays);
      const arr = getAt(d.value, path) as unknown[];
      if (p.chance(0.5) && arr.length) {
        arr.push(structuredClone(arr[0]));
        d.notes.push(`duplicate item in ${fmt(path)}`);
      } else {
        // many items, but at most ~4 MiB of them (a huge string may already sit in the first item)
        const itemBytes = arr.length ? (JSON.stringify(arr[0]) ?? '').length + 1 : 2;
        const n = Math.min(p.pick([1000, 20_000]), Math.max(1, Math.floor((4 * 1024 * 1024) / itemBytes)));
        setAt(
          d.value,
          path,
          Array.from({ length: n }, (_, i) => (arr.length ? structuredClone(arr[0]) : i)),
        );
        d.notes.push(`${n} items in ${fmt(path)}`);
      }
    },
  ],
];

function mutateMetadata(p: Prng, d: Doc): void {
  const root = d.value as Obj;
  if (!isObj(root.metadata)) root.metadata = {};
  const m = root.metadata as Obj;
  const which = p.int(14);
  switch (which) {
    case 0:
      m.name = p.pick(INVALID_NAMES);
      break;
    case 1:
      m.labels = { ...(isObj(m.labels) ? m.labels : {}), [p.pick(INVALID_LABEL_KEYS)]: 'v' };
      break;
    case 2:
      m.labels = { ...(isObj(m.labels) ? m.labels : {}), app: p.pick(INVALID_LABEL_VALUES) };
      break;
    case 3:
      m.annotations = { big: 'a'.repeat(p.pick([200 * 1024, 262_145, 400 * 1024])) };
      break;
    case 4:
      m.resourceVersion = p.pick(['abc', '-1', '0', '99999999999999999999', '', '1.5', ' 1']);
      break;
    case 5:
      m.namespace = p.pick(['other', 'default', '', 'BAD NS', 'does-not-exist']);
      break;
    case 6:
      m.generateName = p.pick(['gen-', 'BAD-', '', 'x'.repeat(300), '-']);
      delete m.name;
      break;
    case 7:
      m.finalizers = p.pick<Json>([
        ['bad finalizer'],
        ['example.com/f', 'example.com/f'],
        'notalist',
        [1, 2],
        ['kubernetes'],
      ]);
      break;
    case 8:
      m.ownerReferences = p.pick<Json>([
        [{}],
        [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: '' }],
        [
          { apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'u', controller: true },
          { apiVersion: 'v1', kind: 'Pod', name: 'y', uid: 'v', controller: true },
        ],
        'x',
      ]);
      break;
    case 9:
      m.managedFields = p.pick<Json>([
        [{}],
        [{ manager: 'm', operation: 'Bogus', fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } }],
        [{ manager: 'x'.repeat(200), operation: 'Apply' }],
        'nope',
        [null],
      ]);
      break;
    case 10:
      m.creationTimestamp = p.pick<Json>(['yesterday', '2026-13-45T99:00:00Z', 12345, '']);
      break;
    case 11:
      m.deletionTimestamp = p.pick<Json>(['2026-01-01T00:00:00Z', 'nope']);
      break;
    case 12:
      m.uid = p.pick<Json>(['not-a-uid', '', 5]);
      break;
    default:
      m.labels = p.pick<Json>([null, 'string', ['a'], { a: 1 }, { a: null }, { a: true }]);
      break;
  }
  d.notes.push(`metadata mutation #${which}`);
}

/** a deep copy of `valid` with 1–3 mutations */
export function mutate(p: Prng, valid: unknown): Doc {
  const d = new Doc(structuredClone(valid));
  const n = p.weighted([
    [6, 1],
    [3, 2],
    [1, 3],
  ] as const);
  for (let i = 0; i < n; i++) p.weighted(mutations)(p, d);
  return d;
}

/** text-level damage to a serialized document */
export function damageText(p: Prng, text: string): { text: string; note: string } {
  const at = text.length ? p.int(text.length) : 0;
  switch (p.int(8)) {
    case 0:
      return { text: text.slice(0, at), note: `truncated at ${at}/${text.length}` };
    case 1:
      return {
        text: `${text.slice(0, at)}${p.pick(['}', ']', ',', ':', '"', '\\', '\u0000', '{'])}${text.slice(at)}`,
        note: `stray character at ${at}`,
      };
    case 2:
      return { text: `\ufeff${text}`, note: 'BOM prefix' };
    case 3:
      return { text: text.replace(/}$/, ',}'), note: 'trailing comma' };
    case 4:
      return { text: text.replace(/^\{/, '{"kind":"X","kind":"Y",'), note: 'duplicate keys' };
    case 5:
      return { text: `${text}${text}`, note: 'two documents back to back' };
    case 6:
      return { text: `// comment\n${text}`, note: 'leading comment' };
    default:
      return { text: `${text.slice(0, at)}\ud800${text.slice(at)}`, note: 'lone surrogate in the text' };
  }
}

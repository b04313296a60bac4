// Request bodies for writes: valid, mutated, wrong-kind, damaged, hostile (random bytes, deep nesting,
// > 3 MiB), YAML oddities, and the patch documents of each patch type (broken ones included).
import { stringify as toYaml } from 'yaml';
import { allPaths, Doc, damageText, mutate, setAt } from './mutate.ts';
import type { Prng } from './prng.ts';
import { deepJsonText, deepYamlText, randomJson } from './values.ts';

export interface Body {
  bytes: Buffer;
  note: string;
  /** send without Content-Length (chunked) */
  chunked?: boolean;
}

type Obj = Record<string, unknown>;

export const CONTENT_TYPES = {
  json: 'application/json',
  yaml: 'application/yaml',
  merge: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export const ODD_CONTENT_TYPES = [
  'application/apply-patch+cbor',
  'application/vnd.kubernetes.protobuf',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  ';;;',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json-seq',
  'application/merge-patch+json; charset=utf-8',
  'application/yaml; version=99',
  'garbage/garbage',
  '\u00e9/\u00e9',
  '*/*',
  '',
];

const MiB = 1024 * 1024;

function textBody(text: string, note: string): Body {
  return { bytes: Buffer.from(text, 'utf8'), note };
}

/** the document serialized for a content type (YAML for yaml types, JSON otherwise or when splices need it) */
function serialize(p: Prng, d: Doc, contentType: string): string {
  if (contentType.includes('yaml') && !d.hasSplices && p.chance(0.7))
    return toYaml(d.value, { aliasDuplicateObjects: false });
  return d.toJson();
}

/** hostile bodies that do not depend on the target */
export function hostileBody(p: Prng, valid: Obj): Body {
  return p.weighted<() => Body>([
    [
      4,
      () => {
        const n = p.pick([0, 1, 7, 100, 4096, 65_536]);
        return { bytes: p.bytes(n), note: `${n} random bytes` };
      },
    ],
    [
      3,
      () => {
        const n = p.pick([10_000, 10_000, 100_000]);
        const kind = p.chance(0.5) ? 'array' : 'object';
        return textBody(deepJsonText(n, kind), `${n} levels of ${kind} nesting at the top level`);
      },
    ],
    [
      2,
      () => {
        const n = p.pick([10_000, 50_000]);
        const d = new Doc(structuredClone(valid));
        (d.value as Obj).spec = d.splice(deepJsonText(n, 'object'));
        return textBody(d.toJson(), `${n} levels of object nesting in spec`);
      },
    ],
    [1, () => textBody(deepYamlText(10_000), '10000 levels of YAML flow nesting')],
    [
      3,
      () => {
        const size = 3 * MiB + p.pick([1, 1024, MiB]);
        const d = new Doc({
          ...structuredClone(valid),
          metadata: { name: 'big', annotations: { big: 'x'.repeat(size) } },
        });
        return {
          bytes: Buffer.from(d.toJson()),
          note: `body over 3 MiB (${size}-byte annotation)`,
          chunked: p.chance(0.4),
        };
      },
    ],
    [2, () => ({ bytes: Buffer.alloc(0), note: 'empty body' })],
    [1, () => textBody('   \n\t ', 'whitespace-only body')],
    [2, () => textBody(JSON.stringify(randomJson(p, 4)), 'random JSON value')],
    [
      1,
      () =>
        textBody(
          p.pick(['null', 'true', '0', '"str"', '[]', '{}', '[{}]', 'NaN', '-', '{"a":}']),
          'scalar or tiny JSON',
        ),
    ],
    [2, () => textBody(yamlOddity(p), 'YAML oddity')],
    [
      2,
      () => {
        // bytes that are not UTF-8 inside a string of an otherwise valid object (Go's decoder reads them as U+FFFD)
        const bad = p.pick([
          [0xff],
          [0xc3],
          [0xed, 0xa0, 0x80],
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          [0xc0, 0xaf],
          [0xe2, 0x82],
        ]);
        const text = JSON.stringify(valid);
        const at = text.indexOf('"', text.indexOf('"name":') + 7) + 1;
        const bytes =
          at > 0
            ? Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad), Buffer.from(text.slice(at))])
            : Buffer.from(bad);
        return { bytes, note: `invalid UTF-8 (${bad.map((b) => b.toString(16)).join(' ')}) in metadata.name` };
      },
    ],
  ])();
}

function yamlOddity(p: Prng): string {
  return p.pick([
    // billion laughs
    'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tagged\ndata: !!binary aGVsbG8=\n',
    '!!js/function "function(){}"\n',
    'key: value\nkey: again\n',
    'a: b: c\n',
    '\t- tab indented\n',
    'metadata: &m {name: x}\nspec: *m\nother: *undefined\n',
    '? [complex, key]\n: value\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n, labels: {a: yes, b: 0x1F, c: 1e3, d: ~}}\n',
    '%YAML 9.9\n---\na: 1\n',
    '"unterminated\n',
  ]);
}

/** a body for create/update: the valid object, a mutation of it, another kind, damaged text or hostile bytes */
export function objectBody(p: Prng, valid: Obj, other: Obj, contentType: string): Body {
  return p.weighted<() => Body>([
    [12, () => textBody(serialize(p, new Doc(valid), contentType), 'valid object')],
    [
      45,
      () => {
        const d = mutate(p, valid);
        return textBody(serialize(p, d, contentType), `mutated: ${d.notes.join('; ')}`);
      },
    ],
    [5, () => textBody(JSON.stringify(other), `an object of another kind (${String(other.kind)})`)],
    [
      12,
      () => {
        const damaged = damageText(p, serialize(p, p.chance(0.5) ? new Doc(valid) : mutate(p, valid), contentType));
        return textBody(damaged.text, `damaged text: ${damaged.note}`);
      },
    ],
    [20, () => hostileBody(p, valid)],
  ])();
}

/** a body for PATCH of the given content type: mostly a patch document of that type, valid or broken */
export function patchBody(p: Prng, valid: Obj, contentType: string): Body {
  if (p.chance(0.25)) return hostileBody(p, valid);
  const typed = (() => {
    if (contentType.startsWith(CONTENT_TYPES.jsonPatch)) return jsonPatch(p, valid);
    if (contentType.startsWith(CONTENT_TYPES.strategic)) return strategicPatch(p, valid);
    if (contentType.startsWith(CONTENT_TYPES.apply)) {
      const d = p.chance(0.3) ? new Doc(structuredClone(valid)) : mutate(p, valid);
      return textBody(serialize(p, d, contentType), `apply: ${d.notes.join('; ') || 'valid object'}`);
    }
    return mergePatch(p, valid);
  })();
  if (p.chance(0.15)) {
    const damaged = damageText(p, typed.bytes.toString('utf8'));
    return textBody(damaged.text, `${typed.note}; damaged: ${damaged.note}`);
  }
  return typed;
}

/** a subset of the valid object's top-level fields, mutated, with some fields deleted via null */
function mergePatch(p: Prng, valid: Obj): Body {
  const d = mutate(p, valid);
  const v = d.value as Obj;
  if (p.chance(0.5) && v && typeof v === 'object') {
    for (const k of Object.keys(v)) if (k !== 'metadata' && p.chance(0.4)) delete v[k];
  }
  if (p.chance(0.3)) {
    const paths = allPaths(v).filter((x) => x.length > 1);
    if (paths.length) {
      const path = p.pick(paths);
      setAt(v, path, null);
      d.notes.push(`null (delete) at ${path.join('.')}`);
    }
  }
  if (p.chance(0.1)) return textBody(p.pick(['[]', '[1,2]', '"x"', '42', 'null']), 'merge patch that is not an object');
  return textBody(d.toJson(), `merge patch: ${d.notes.join('; ')}`);
}

function jsonPointer(p: Prng, valid: Obj): string {
  const paths = allPaths(valid);
  const real = paths.length
    ? `/${p
        .pick(paths)
        .map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/')}`
    : '/metadata';
  return p.weighted<() => string>([
    [6, () => real],
    [2, () => `${real}/-`],
    [1, () => `${real}/999999`],
    [
      1,
      () =>
        p.pick([
          '',
          '/',
          'no-leading-slash',
          '/metadata/name',
          '/metadata/resourceVersion',
          '/a~2b',
          '/~',
          '/spec/containers/-1',
          '/spec/containers/01',
          '/apiVersion',
          '/kind',
          '/metadata/labels/a~1b',
          '/status/conditions/-',
        ]),
    ],
  ])();
}

function jsonPatch(p: Prng, valid: Obj): Body {
  if (p.chance(0.08))
    return textBody(
      p.pick(['{}', '{"op":"add"}', '"x"', 'null', '[null]', '[1]', '[[]]']),
      'JSON patch that is not a list of operations',
    );
  const ops: unknown[] = [];
  const n = p.range(1, 4);
  for (let i = 0; i < n; i++) {
    const op = p.weighted<string>([
      [3, 'add'],
      [3, 'replace'],
      [2, 'remove'],
      [1, 'move'],
      [1, 'copy'],
      [2, 'test'],
      [1, 'bogus'],
      [1, ''],
    ]);
    const o: Obj = { op, path: jsonPointer(p, valid) };
    if (op === 'move' || op === 'copy' || p.chance(0.1)) o.from = jsonPointer(p, valid);
    if (op !== 'remove' && p.chance(0.9)) o.value = randomJson(p, 3);
    if (p.chance(0.1)) delete o[p.pick(['op', 'path', 'value'])];
    if (p.chance(0.05)) o.path = p.pick([1, null, ['a'], {}]);
    ops.push(o);
  }
  return textBody(
    JSON.stringify(ops),
    `JSON patch: ${ops.map((o) => `${(o as Obj).op} ${String((o as Obj).path)}`).join(', ')}`,
  );
}

const STRATEGIC_DIRECTIVES: [string, unknown][] = [
  ['$patch', 'delete'],
  ['$patch', 'replace'],
  ['$patch', 'merge'],
  ['$patch', 'bogus'],
  ['$patch', 5],
  ['$retainKeys', ['a']],
  ['$retainKeys', 'notalist'],
  ['$setElementOrder/containers', [{ name: 'main' }]],
  ['$setElementOrder/containers', 'x'],
  ['$deleteFromPrimitiveList/finalizers', ['a']],
  ['$deleteFromPrimitiveList/finalizers', 'x'],
  ['$unknownDirective', 1],
];

function strategicPatch(p: Prng, valid: Obj): Body {
  const d = mutate(p, valid);
  const v = d.value as Obj;
  const containers = allPaths(v).filter((x) => x.length < 5);
  const n = p.range(0, 3);
  for (let i = 0; i < n; i++) {
    const [key, value] = p.pick(STRATEGIC_DIRECTIVES);
    let target: unknown = v;
    const path = containers.length ? p.pick(containers) : [];
    for (const k of path) target = (target as Record<string | number, unknown>)?.[k];
    if (target && typeof target === 'object') {
      if (Array.isArray(target)) target.push({ [key]: value });
      else (target as Obj)[key] = value;
      d.notes.push(`${key}=${JSON.stringify(value)} at ${path.join('.') || '<root>'}`);
    }
  }
  const spec = v.spec;
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec) && p.chance(0.3)) {
    // list items without their merge key
    (spec as Obj).containers = [{ image: 'no-name' }, { name: null }, 'scalar'];
    d.notes.push('containers without merge keys');
  }
  return textBody(d.toJson(), `strategic patch: ${d.notes.join('; ')}`);
}

export function deleteOptionsBody(p: Prng): Body {
  return p.weighted<() => Body>([
    [
      3,
      () =>
        textBody(
          JSON.stringify({
            kind: 'DeleteOptions',
            apiVersion: 'v1',
            propagationPolicy: p.pick(['Foreground', 'Background', 'Orphan', 'Sideways', '']),
            gracePeriodSeconds: p.pick([0, 30, -1, 1.5]),
          }),
          'DeleteOptions',
        ),
    ],
    [
      2,
      () =>
        textBody(
          JSON.stringify({
            preconditions: { uid: p.pick(['wrong-uid', '', 5]), resourceVersion: p.pick(['1', 'abc', null]) },
          }),
          'DeleteOptions with preconditions',
        ),
    ],
    [
      2,
      () =>
        textBody(
          JSON.stringify({ dryRun: p.pick([['All'], ['Nope'], 'All', 5]), orphanDependents: p.pick([true, 'yes']) }),
          'DeleteOptions with odd fields',
        ),
    ],
    [1, () => textBody(JSON.stringify({ kind: 'Pod', apiVersion: 'v1' }), 'DeleteOptions of the wrong kind')],
    [2, () => hostileBody(p, { metadata: {} })],
  ])();
}

// Random and hostile JSON values and metadata pieces: the raw material the body generators and
// mutators combine. Everything here draws from the seeded PRNG only.
import type { Prng } from './prng.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export const UNICODE_STRINGS = [
  '',
  ' ',
  'ünïcödé',
  '日本語テキスト',
  '🚀🔥💥',
  '\u202eright-to-left',
  'nul\u0000inside',
  'lone\ud800surrogate',
  'tail\udfff',
  'zero\u200bwidth',
  'e\u0301\u0301\u0301combining',
  '\ufeffbom',
  'line\nbreak\r\n',
  'tab\there',
  '"quoted"',
  '\\backslash\\',
  '$' + '{jndi:ldap://x}',
  '{{.metadata.name}}',
  '../../etc/passwd',
  '%00%ff',
  'a'.repeat(64),
  'a'.repeat(254),
];

export const ODD_NUMBERS: number[] = [
  0,
  -0,
  -1,
  1.5,
  -2.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e308,
  -1e308,
  5e-324,
  2 ** 63,
  2 ** 64,
];

/** literal number texts JSON.stringify cannot produce (spliced into raw JSON) */
export const RAW_NUMBER_TEXTS = [
  '1e999',
  '-1e999',
  '9223372036854775808',
  '123456789012345678901234567890',
  '0.0000000000000000000000000000001',
  '1E+2',
  '-0.0',
  '00012',
  '1.',
  '.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '+1',
];

export const INVALID_NAMES = [
  '',
  'UPPER',
  'has space',
  'under_score',
  '-leading',
  'trailing-',
  'a..b',
  '.',
  '..',
  'a/b',
  'a%2Fb',
  'é',
  'x'.repeat(254),
  'x'.repeat(64),
  '1.2.3.4',
  'a.',
  '*',
  'ünicode',
];

export const INVALID_LABEL_KEYS = [
  '',
  '/',
  'a/',
  '/a',
  'a/b/c',
  'Bad Key',
  'k'.repeat(64),
  `${'p'.repeat(254)}/k`,
  'example.com/',
  '-a',
  'a-',
  'kubernetes.io//x',
  'ü',
];
export const INVALID_LABEL_VALUES = ['-a', 'a-', 'v'.repeat(64), 'has space', 'a/b', 'ü', '\n', '.a'];

// Selectors kube-apiserver rejects (400). Look-alikes it accepts are in the VALID lists: `a=`, `a==`, `a!=`
// (matches objects without `a`), `a in ()` (the value set {""}), `,` and a NUL (its lexer reads NUL as end of input).
export const BROKEN_LABEL_SELECTORS = [
  '=b',
  'a in (',
  'a notin b',
  '!',
  '!!a',
  'a,',
  ',',
  'a=b,,c=d',
  'a in (b,c',
  'a > x',
  'a < 1,',
  'a=(b)',
  'Bad Key=1',
  'x'.repeat(300),
  'a in (b c)',
  'a=b)',
  '()',
  'a=b c',
  'a=ü',
  'a,b=c=d',
  'a>1e999',
];
export const VALID_LABEL_SELECTORS = [
  'app=fuzz',
  'app!=other',
  'app in (fuzz,x)',
  'app notin (x)',
  'app',
  '!missing',
  'app=fuzz,!missing',
  'fuzz.modelplane.dev/generation>0',
  'tier<5',
  '',
  'a=',
  'a==',
  'a!=',
  'a =b',
  'a in ()',
  'a in (,)',
  '\u0000',
];
export const BROKEN_FIELD_SELECTORS = [
  'metadata.name',
  'spec.unknown=x',
  'metadata.labels=x',
  '=x',
  'metadata.name in (a)',
  'a,b',
  '\u0000=1',
  'metadata.name=a=b',
];
export const VALID_FIELD_SELECTORS = [
  'metadata.name=fixture',
  'metadata.namespace=fuzz',
  'metadata.name!=x',
  'status.phase=Running',
  'spec.nodeName=',
  'type=Opaque',
  'metadata.namespace!=default,metadata.name=fixture',
  'metadata.name==',
  'status.phase!=',
  ',',
];

export function randomString(p: Prng): string {
  return p.weighted<() => string>([
    [4, () => p.string(p.range(1, 20))],
    [3, () => p.pick(UNICODE_STRINGS)],
    [1, () => p.string(p.range(100, 5000), 'abcXYZ019 ./-_:@ü😀\u0000"\\')],
  ])();
}

export function randomNumber(p: Prng): number {
  return p.weighted<() => number>([
    [3, () => p.int(100)],
    [2, () => p.pick(ODD_NUMBERS)],
    [1, () => (p.next() - 0.5) * 10 ** p.int(30)],
  ])();
}

export function randomJson(p: Prng, depth = 3): Json {
  const leaf = (): Json =>
    p.weighted<() => Json>([
      [1, () => null],
      [1, () => p.chance(0.5)],
      [2, () => randomNumber(p)],
      [3, () => randomString(p)],
    ])();
  if (depth <= 0) return leaf();
  return p.weighted<() => Json>([
    [5, leaf],
    [2, () => Array.from({ length: p.int(4) }, () => randomJson(p, depth - 1))],
    [
      2,
      () => {
        const o: Record<string, Json> = {};
        const n = p.int(4);
        for (let i = 0; i < n; i++)
          o[p.chance(0.8) ? p.string(p.range(1, 8), 'abcdefghij') : randomString(p)] = randomJson(p, depth - 1);
        return o;
      },
    ],
  ])();
}

/** a value of a different JSON type than `v` */
export function typeFlip(p: Prng, v: unknown): Json {
  const options: Json[] = [null, true, 0, -1, 3.25, '', 'string', [], [1, 'a'], {}, { nested: { x: 1 } }];
  const differs = options.filter((o) => jsonType(o) !== jsonType(v));
  return p.pick(differs);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** `n` levels of nesting as JSON text (built as text: JSON.stringify would recurse that deep) */
export function deepJsonText(n: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
}

/** `n` levels of YAML nesting in flow style (block style would be n² bytes of indentation) */
export function deepYamlText(n: number): string {
  return `${'- '.repeat(1)}${'['.repeat(n)}x${']'.repeat(n)}`;
}

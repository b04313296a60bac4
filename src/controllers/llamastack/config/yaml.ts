// Deterministic config.yaml text that the Llama Stack server reads back as exactly the data written. Map
// keys are sorted at every level, list order is kept, there are no anchors and no timestamps, so the same
// input gives byte-identical YAML and therefore the same hash and ConfigMap name.
//
// The server reads config.yaml with PyYAML's safe_load, a YAML 1.1 reader, so the `yaml` library writes
// YAML 1.1 here, with two scalar writers of our own where its defaults would be read differently:
// - numbers: YAML 1.1 floats need a dot and a signed exponent (`1e-7` and `1e+21` are strings to PyYAML),
//   so an exponent is written `1.0e-7`, `1.0e+21`;
// - strings: a bare scalar only when it is plainly safe (no indicator, nothing YAML 1.1 resolves to
//   another type, such as `yes`, `on`, `=`, `1:20`, `0x1F`); everything else double-quoted with every
//   character outside printable ASCII escaped, because PyYAML refuses C1 control characters in a file and
//   reads U+0085, U+2028 and U+2029 as line breaks even inside quotes.
import { createHash } from 'node:crypto';
import {
  type CreateNodeOptions,
  type DocumentOptions,
  type ScalarTag,
  type SchemaOptions,
  stringify,
  type ToStringOptions,
} from 'yaml';

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./@+-]*$/;
/** plain scalars YAML 1.1 (or 1.2) reads as something other than the string */
const RESOLVES_TO_OTHER_TYPE =
  /^(?:y|yes|n|no|true|false|on|off|null|~|=|<<|\.inf|\.nan|[-+]?\.inf|[0-9].*|[-+][0-9.].*|\.[0-9].*)$/i;

function escapeChar(ch: string): string {
  const c = ch.codePointAt(0)!;
  if (ch === '"') return '\\"';
  if (ch === '\\') return '\\\\';
  if (c >= 0x20 && c < 0x7f) return ch;
  if (c === 0x0a) return '\\n';
  if (c === 0x09) return '\\t';
  if (c < 0x100) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c < 0x10000) return `\\u${c.toString(16).padStart(4, '0')}`;
  return `\\U${c.toString(16).padStart(8, '0')}`;
}

function yamlString(s: string): string {
  if (PLAIN.test(s) && !RESOLVES_TO_OTHER_TYPE.test(s)) return s;
  let out = '"';
  for (const ch of s) out += escapeChar(ch);
  return `${out}"`;
}

/** a number as PyYAML reads it back: an exponent needs a dot in the mantissa and a sign */
export function yamlNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Number.POSITIVE_INFINITY) return '.inf';
  if (n === Number.NEGATIVE_INFINITY) return '-.inf';
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const mantissa = s.slice(0, e);
  const exponent = s.slice(e + 1);
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${/^[-+]/.test(exponent) ? exponent : `+${exponent}`}`;
}

// `test` never matches: these tags only write; when a value fits several tags, the library prefers those
// with a `test`, and among them the first listed
const NEVER = /(?!)/;
const stringTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:str',
  default: true,
  identify: (v) => typeof v === 'string',
  test: NEVER,
  resolve: (s) => s,
  stringify: (item) => yamlString(String(item.value)),
};
const numberTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  identify: (v) => typeof v === 'number',
  test: NEVER,
  resolve: (s) => Number(s),
  stringify: (item) => yamlNumber(Number(item.value)),
};

const OPTIONS: CreateNodeOptions & DocumentOptions & SchemaOptions & ToStringOptions = {
  version: '1.1',
  sortMapEntries: true,
  lineWidth: 0,
  indentSeq: false,
  aliasDuplicateObjects: false,
  customTags: (tags) => [stringTag, numberTag, ...tags],
};

export function deterministicYaml(config: Record<string, unknown>): string {
  return stringify(config, OPTIONS);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

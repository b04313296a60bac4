// Parsed, cached views of the compact message table in messages.ts.

import { SPECIAL_MESSAGES } from './message-names.ts';
import { MESSAGES } from './messages.ts';
import { ProtobufError, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.ts';

export type ScalarType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'double'
  | 'float';

/** A field's value type: a scalar, or a message by its messages.ts name. */
export type ValueType = { scalar: ScalarType } | { message: string };

export interface FieldDef {
  json: string;
  number: number;
  value: ValueType;
  /** map<K,V>: `value` is V */
  mapKey?: ScalarType;
  repeated: boolean;
  /** a Go pointer: presence survives the wire, so a zero value that was sent is kept */
  pointer: boolean;
  /** no omitempty: Go's JSON writes zero scalars and null for nil lists, maps and pointers */
  keep: boolean;
  /** json:",inline": the message's fields are written into the parent object */
  inline: boolean;
  /** the wire type of one value (map entries and packed runs are length-delimited regardless) */
  wire: number;
}

export interface MessageDef {
  name: string;
  fields: FieldDef[];
  byNumber: Map<number, FieldDef>;
  /** a Go slice type wrapped in a message for protobuf (e.g. ExtraValue): JSON is field 1's list */
  list: boolean;
}

const SCALARS = new Set<string>([
  'string',
  'bytes',
  'bool',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
  'double',
  'float',
]);

export function wireTypeOf(t: ValueType): number {
  if ('message' in t) return WIRE_BYTES;
  switch (t.scalar) {
    case 'string':
    case 'bytes':
      return WIRE_BYTES;
    case 'fixed64':
    case 'sfixed64':
    case 'double':
      return WIRE_FIXED64;
    case 'fixed32':
    case 'sfixed32':
    case 'float':
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

function parseType(text: string, where: string): ValueType {
  if (SCALARS.has(text)) return { scalar: text as ScalarType };
  if (text.includes('.') && (MESSAGES[text] !== undefined || SPECIAL_MESSAGES.has(text))) return { message: text };
  throw new Error(`messages.ts ${where}: unknown type ${text}`);
}

function parseField(token: string, where: string): FieldDef {
  const m = /^([^=]+)=(\d+):(map<([^,>]+),([^>]+)>|[^*?!^]+)([*?!^]*)$/.exec(token);
  if (!m) throw new Error(`messages.ts ${where}: malformed field ${token}`);
  const [, json, num, typeText, mapKey, mapValue, flags] = m;
  const key = mapKey ? parseType(mapKey, where) : undefined;
  if (key && !('scalar' in key)) throw new Error(`messages.ts ${where}: map key ${mapKey} is not a scalar`);
  const value = parseType(mapValue ?? typeText!, where);
  return {
    json: json!,
    number: Number(num),
    value,
    wire: wireTypeOf(value),
    ...(key && 'scalar' in key ? { mapKey: key.scalar } : {}),
    repeated: flags!.includes('*'),
    pointer: flags!.includes('?'),
    keep: flags!.includes('!'),
    inline: flags!.includes('^'),
  };
}

const cache = new Map<string, MessageDef>();

export function messageDef(name: string): MessageDef {
  let def = cache.get(name);
  if (def) return def;
  const text = MESSAGES[name];
  if (text === undefined) throw new ProtobufError(`no protobuf schema for message ${name}`);
  const list = text.startsWith('#list ');
  const fields = (list ? text.slice(6) : text)
    .split(' ')
    .filter(Boolean)
    .map((t) => parseField(t, name));
  def = { name, fields, byNumber: new Map(fields.map((f) => [f.number, f])), list };
  cache.set(name, def);
  return def;
}

// A JSON object → the protobuf bytes gogo-protobuf writes for the Go struct kube-apiserver would hold: fields
// in ascending number order; non-pointer scalars and structs always written (proto2 without omitempty);
// pointers, []byte, lists and maps only when set; map entries sorted by key. Values of the wrong JSON type are
// coerced the way a lenient decode would (a stored object was validated, so this is a safety net).
import { type FieldDef, messageDef, type ScalarType } from './schema.ts';
import { SPECIAL_ENCODERS } from './special-encoders.ts';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.ts';
import { WireWriter } from './wire-writer.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function toNumber(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return 0;
}

function toInteger(v: unknown): bigint {
  return BigInt(Math.trunc(toNumber(v)));
}

function writeScalar(w: WireWriter, field: number, t: ScalarType, v: unknown): void {
  switch (t) {
    case 'string':
      w.string(
        field,
        typeof v === 'string'
          ? v
          : v === undefined || v === null
            ? ''
            : typeof v === 'object'
              ? JSON.stringify(v)
              : String(v),
      );
      return;
    case 'bytes':
      w.bytes(field, typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0));
      return;
    case 'bool':
      w.tag(field, WIRE_VARINT);
      w.varint(v === true ? 1 : 0);
      return;
    case 'int32':
      w.tag(field, WIRE_VARINT);
      w.varint(BigInt.asIntN(32, toInteger(v)));
      return;
    case 'int64':
    case 'uint64':
      w.tag(field, WIRE_VARINT);
      w.varint(toInteger(v));
      return;
    case 'uint32':
      w.tag(field, WIRE_VARINT);
      w.varint(BigInt.asUintN(32, toInteger(v)));
      return;
    case 'sint32':
    case 'sint64': {
      const n = toInteger(v);
      w.tag(field, WIRE_VARINT);
      w.varint(n >= 0n ? n * 2n : -n * 2n - 1n);
      return;
    }
    case 'fixed32':
    case 'sfixed32':
    case 'float': {
      const b = Buffer.alloc(4);
      if (t === 'float') b.writeFloatLE(toNumber(v));
      else if (t === 'fixed32') b.writeUInt32LE(Number(BigInt.asUintN(32, toInteger(v))));
      else b.writeInt32LE(Number(BigInt.asIntN(32, toInteger(v))));
      w.tag(field, WIRE_FIXED32);
      w.raw(b);
      return;
    }
    case 'fixed64':
    case 'sfixed64':
    case 'double': {
      const b = Buffer.alloc(8);
      if (t === 'double') b.writeDoubleLE(toNumber(v));
      else if (t === 'fixed64') b.writeBigUInt64LE(BigInt.asUintN(64, toInteger(v)));
      else b.writeBigInt64LE(BigInt.asIntN(64, toInteger(v)));
      w.tag(field, WIRE_FIXED64);
      w.raw(b);
      return;
    }
  }
}

/** The bytes of message `name` for a JSON value (`undefined`/`null` give the Go zero value). */
export function encodeMessage(name: string, value: unknown): Buffer {
  const special = SPECIAL_ENCODERS.get(name);
  if (special) return special(value);
  const def = messageDef(name);
  const w = new WireWriter();
  if (def.list) {
    const f = def.fields[0]!;
    if (Array.isArray(value)) for (const item of value) writeValue(w, f, item);
    return w.finish();
  }
  const obj = isObject(value) ? value : {};
  let fields = byNumber.get(name);
  if (!fields) byNumber.set(name, (fields = [...def.fields].sort((a, b) => a.number - b.number)));
  for (const f of fields) writeField(w, f, f.inline ? obj : obj[f.json]);
  return w.finish();
}

/** each message's fields in wire order (messages.ts lists them in Go struct order) */
const byNumber = new Map<string, FieldDef[]>();

function writeValue(w: WireWriter, f: FieldDef, v: unknown): void {
  if ('scalar' in f.value) writeScalar(w, f.number, f.value.scalar, v);
  else w.bytes(f.number, encodeMessage(f.value.message, v));
}

function writeField(w: WireWriter, f: FieldDef, v: unknown): void {
  if (f.mapKey) {
    if (!isObject(v)) return;
    const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const k of keys) {
      const entry = new WireWriter();
      writeScalar(entry, 1, f.mapKey, f.mapKey === 'string' ? k : Number(k));
      const item = v[k];
      // gogo writes a nil []byte map value as a key alone
      if (!('scalar' in f.value && f.value.scalar === 'bytes' && (item === null || item === undefined)))
        writeValue(entry, { ...f, number: 2 }, item);
      w.bytes(f.number, entry.finish());
    }
    return;
  }
  if (f.repeated) {
    if (Array.isArray(v)) for (const item of v) writeValue(w, f, item);
    return;
  }
  const absent = v === undefined || v === null;
  if (absent && (f.pointer || ('scalar' in f.value && f.value.scalar === 'bytes'))) return;
  writeValue(w, f, v);
}

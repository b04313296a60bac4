// One protobuf message → the JSON Go's encoding/json would write for the struct gogo-protobuf decodes it into:
// absent fields become Go zero values, then omitempty decides what is written (see messages.ts for flags).
import { type FieldDef, messageDef, type ScalarType, wireTypeOf } from './schema.ts';
import { SPECIAL_DECODERS } from './special-messages.ts';
import { fixed64ToNumber, ProtobufError, WIRE_BYTES, WireReader } from './wire.ts';

const WIRE_NAMES = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32'];

interface Range {
  buf: Buffer;
  start: number;
  end: number;
}

/** What was read for one field of one message (only the member its kind of field uses is set). */
interface Slot {
  scalar?: unknown;
  list?: unknown[];
  /** byte ranges of a singular message field: protobuf merges repeats, i.e. decodes their concatenation */
  chunks?: Range[];
  map?: Map<string, unknown>;
}

class LocatedError extends ProtobufError {}

/** Prefixes a reader error with the field path once (the innermost message that saw it). */
function locate(e: unknown, path: string): never {
  if (e instanceof LocatedError || !(e instanceof Error)) throw e;
  throw new LocatedError(`${path}: ${e.message}`);
}

/** `parent` is the enclosing message's path; the field's own path is only built for the error. */
function checkWire(f: FieldDef, wire: number, want: number, parent: string, what = ''): void {
  if (wire !== want) {
    throw new LocatedError(
      `${parent}.${f.json}${what}: field ${f.number} (${f.json}) has wire type ${WIRE_NAMES[wire]}, expected ${WIRE_NAMES[want]}`,
    );
  }
}

function readScalar(t: ScalarType, r: WireReader): unknown {
  switch (t) {
    case 'string':
      return r.bytes().toString('utf8');
    case 'bytes':
      return r.bytes().toString('base64'); // Go's encoding/json writes []byte as standard base64
    case 'bool':
      return r.varint64() !== 0n;
    case 'int32':
      return r.varint(true) | 0;
    case 'int64':
      return r.varint(true);
    case 'uint32':
      return Number(r.varint64() & 0xffffffffn);
    case 'uint64':
      return r.varint();
    case 'sint32':
    case 'sint64': {
      const v = r.varint64();
      const n = Number((v >> 1n) ^ -(v & 1n));
      return t === 'sint32' ? n | 0 : n;
    }
    case 'fixed32':
      return r.fixed32().readUInt32LE(0);
    case 'sfixed32':
      return r.fixed32().readInt32LE(0);
    case 'float':
      return r.fixed32().readFloatLE(0);
    case 'fixed64':
      return fixed64ToNumber(r.fixed64(), false);
    case 'sfixed64':
      return fixed64ToNumber(r.fixed64(), true);
    case 'double':
      return r.fixed64().readDoubleLE(0);
  }
}

/** Go's zero value for a scalar as JSON: nil []byte is null. */
function zeroScalar(t: ScalarType): unknown {
  if (t === 'string') return '';
  if (t === 'bytes') return null;
  if (t === 'bool') return false;
  return 0;
}

/** omitempty's notion of empty (for scalars). */
const isEmpty = (v: unknown) => v === '' || v === 0 || v === false || v === null;

function readerFor(chunks: Range[]): WireReader {
  if (chunks.length === 1) return new WireReader(chunks[0]!.buf, chunks[0]!.start, chunks[0]!.end);
  return new WireReader(Buffer.concat(chunks.map((c) => c.buf.subarray(c.start, c.end))));
}

function subRange(r: WireReader): Range {
  const n = r.length();
  const start = r.pos;
  r.pos += n;
  return { buf: r.buf, start, end: start + n };
}

function readMapEntry(f: FieldDef, r: WireReader, map: Map<string, unknown>, parent: string): void {
  let key: unknown = zeroScalar(f.mapKey!);
  let value: unknown;
  let valueRange: Range | undefined;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1) {
      checkWire(f, wire, wireTypeOf({ scalar: f.mapKey! }), parent, ' (map key)');
      key = readScalar(f.mapKey!, r);
    } else if (field === 2) {
      checkWire(f, wire, f.wire, parent, ' (map value)');
      if ('message' in f.value) valueRange = subRange(r);
      else value = readScalar(f.value.scalar, r);
    } else r.skip(wire, field);
  }
  const k = String(key ?? '');
  if ('message' in f.value) {
    const vr = valueRange && new WireReader(valueRange.buf, valueRange.start, valueRange.end);
    map.set(k, decodeMessage(f.value.message, vr, `${parent}.${f.json}[${JSON.stringify(k)}]`));
  } else {
    // gogo decodes a missing map value as the zero value ([]byte{} for bytes, written as "").
    map.set(k, value ?? (f.value.scalar === 'bytes' ? '' : zeroScalar(f.value.scalar)));
  }
}

/**
 * Decodes the message `name` (a messages.ts name) from `r`; `r` undefined gives the JSON of the Go zero value.
 * `path` names the field for error messages (e.g. "Deployment.spec.template").
 */
export function decodeMessage(name: string, r: WireReader | undefined, path: string): unknown {
  const special = SPECIAL_DECODERS.get(name);
  if (special) {
    try {
      return special(r);
    } catch (e) {
      locate(e, path);
    }
  }
  const def = messageDef(name);
  const slots = new Map<number, Slot>();
  try {
    while (r && !r.done) {
      const { field, wire } = r.tag();
      const f = def.byNumber.get(field);
      if (!f) {
        r.skip(wire, field); // a field newer than our schema: protobuf parsers ignore it
        continue;
      }
      let slot = slots.get(field);
      if (!slot) slots.set(field, (slot = {}));
      if (f.mapKey) {
        checkWire(f, wire, WIRE_BYTES, path);
        readMapEntry(f, r.sub(), (slot.map ??= new Map()), path);
      } else if (f.repeated) {
        const list = (slot.list ??= []);
        if (wire === WIRE_BYTES && f.wire !== WIRE_BYTES && 'scalar' in f.value) {
          const packed = r.sub(); // packed repeated scalars: one length-delimited run
          while (!packed.done) list.push(readScalar(f.value.scalar, packed));
        } else {
          checkWire(f, wire, f.wire, path);
          list.push(
            'scalar' in f.value
              ? readScalar(f.value.scalar, r)
              : decodeMessage(f.value.message, r.sub(), `${path}.${f.json}[${list.length}]`),
          );
        }
      } else {
        checkWire(f, wire, f.wire, path);
        if ('scalar' in f.value) slot.scalar = readScalar(f.value.scalar, r);
        else if (SPECIAL_DECODERS.has(f.value.message))
          slot.chunks = [subRange(r)]; // custom Unmarshal replaces
        else (slot.chunks ??= []).push(subRange(r));
      }
    }
  } catch (e) {
    locate(e, path);
  }
  if (def.list) {
    const items = slots.get(def.fields[0]!.number)?.list;
    return items?.length ? items : null; // a nil Go slice
  }
  return toJson(def.fields, slots, path);
}

function toJson(fields: FieldDef[], slots: Map<number, Slot>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const s = slots.get(f.number);
    if (f.inline) {
      if ('message' in f.value)
        Object.assign(out, decodeMessage(f.value.message, s?.chunks && readerFor(s.chunks), path));
    } else if (f.mapKey) {
      if (s?.map?.size) out[f.json] = Object.fromEntries([...s.map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      else if (f.keep) out[f.json] = null;
    } else if (f.repeated) {
      if (s?.list?.length) out[f.json] = s.list;
      else if (f.keep) out[f.json] = null;
    } else if ('message' in f.value) {
      if (s?.chunks) out[f.json] = decodeMessage(f.value.message, readerFor(s.chunks), `${path}.${f.json}`);
      else if (!f.pointer)
        out[f.json] = decodeMessage(f.value.message, undefined, `${path}.${f.json}`); // a struct is always written
      else if (f.keep) out[f.json] = null;
    } else if (f.pointer) {
      if (s) out[f.json] = s.scalar;
      else if (f.keep) out[f.json] = null;
    } else {
      const v = s ? s.scalar : zeroScalar(f.value.scalar);
      if (f.keep || !isEmpty(v)) out[f.json] = v;
    }
  }
  return out;
}

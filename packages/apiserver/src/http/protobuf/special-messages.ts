// Messages whose Go types have hand-written protobuf and JSON marshalling in k8s.io/apimachinery, so their
// JSON form is not their protobuf shape: Time, MicroTime, Duration, FieldsV1, Quantity, IntOrString, RawExtension.
import { formatGoDuration } from '@modelplane/apimachinery';
import { ProtobufError, type WireReader } from './wire.ts';

/** Errors name no path: the caller prefixes the field path. */
type Decoder = (r: WireReader | undefined) => unknown;

/** Field 1 (int64) and 2 (int32) of a Timestamp-shaped message. */
function readSecondsNanos(r: WireReader): { seconds: bigint; nanos: number } {
  let seconds = 0n;
  let nanos = 0;
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === 0) seconds = BigInt.asIntN(64, r.varint64());
    else if (t.field === 2 && t.wire === 0) nanos = r.varint(true) | 0;
    else if (t.field <= 2) throw new ProtobufError(`field ${t.field} has wire type ${t.wire}, expected 0 (varint)`);
    else r.skip(t.wire, t.field);
  }
  return { seconds, nanos };
}

// Seconds from 0001-01-01T00:00:00Z (Go's zero time) to the Unix epoch.
const GO_ZERO_TIME_UNIX = -62135596800n;
const MAX_RFC3339_UNIX = 253402300799n; // 9999-12-31T23:59:59Z

/** Go's t.UTC().Format(RFC3339) (fractionDigits 0) or RFC3339Micro (6), as metav1.Time/MicroTime marshal. */
function formatTime(seconds: bigint, nanos: number, fractionDigits: 0 | 6): string | null {
  // time.Unix normalises nanos outside [0, 1e9) into the seconds.
  seconds += BigInt(Math.floor(nanos / 1e9));
  nanos = ((nanos % 1e9) + 1e9) % 1e9;
  if (seconds === GO_ZERO_TIME_UNIX && nanos === 0) return null; // time.Time{}: JSON null
  if (seconds < GO_ZERO_TIME_UNIX || seconds > MAX_RFC3339_UNIX) {
    throw new ProtobufError(`time ${seconds}s is outside the years 1-9999 that JSON can represent`);
  }
  const secOfDay = Number(((seconds % 86400n) + 86400n) % 86400n);
  // Date covers years 1..9999 (±8.64e15 ms); only the calendar date is taken from it.
  const d = new Date(Number((seconds - BigInt(secOfDay)) / 86400n) * 86_400_000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const clock = `${pad(Math.floor(secOfDay / 3600))}:${pad(Math.floor(secOfDay / 60) % 60)}:${pad(secOfDay % 60)}`;
  const fraction = fractionDigits ? `.${pad(Math.floor(nanos / 1000), 6)}` : '';
  return `${date}T${clock}${fraction}Z`;
}

const time: Decoder = (r) => {
  if (!r || r.done) return null; // metav1.Time.Unmarshal: empty bytes are the zero time
  // Go drops the nanoseconds of a metav1.Time on decode (seconds are all its JSON carries).
  return formatTime(readSecondsNanos(r).seconds, 0, 0);
};

const microTime: Decoder = (r) => {
  if (!r || r.done) return null;
  const { seconds, nanos } = readSecondsNanos(r);
  return formatTime(seconds, nanos, 6);
};

const duration: Decoder = (r) => {
  let ns = 0n;
  while (r && !r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === 0) ns = BigInt.asIntN(64, r.varint64());
    else if (t.field === 1) throw new ProtobufError(`field duration has wire type ${t.wire}, expected 0 (varint)`);
    else r.skip(t.wire, t.field);
  }
  return formatGoDuration(ns);
};

/** The single bytes/string field 1 of FieldsV1, RawExtension and Quantity, if present. */
function field1Bytes(r: WireReader | undefined): Buffer | undefined {
  let out: Buffer | undefined;
  while (r && !r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === 2) out = r.bytes();
    else if (t.field === 1) throw new ProtobufError(`field 1 has wire type ${t.wire}, expected 2 (length-delimited)`);
    else r.skip(t.wire, t.field);
  }
  return out;
}

/** FieldsV1 and RawExtension hold raw JSON that Go writes out verbatim (null when absent). */
const rawJson: Decoder = (r) => {
  const raw = field1Bytes(r);
  if (raw === undefined || raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new ProtobufError(`embedded raw JSON is invalid: ${(e as Error).message}`);
  }
};

// resource.ParseQuantity's grammar: a signed decimal number with an optional suffix.
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[KMGTPE]i|[munkMGTPE]|[eE][+-]?\d+)?$/;

const quantity: Decoder = (r) => {
  const raw = field1Bytes(r);
  if (raw === undefined) return '0'; // the zero Quantity
  const s = raw.toString('utf8');
  // Go's Quantity.Unmarshal runs ParseQuantity and fails the whole body on a bad value.
  if (!QUANTITY.test(s))
    throw new ProtobufError(
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got ${JSON.stringify(s)}`,
    );
  return s;
};

const intOrString: Decoder = (r) => {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  while (r && !r.done) {
    const t = r.tag();
    const want = t.field === 3 ? 2 : 0;
    if (t.field <= 3 && t.wire !== want)
      throw new ProtobufError(`IntOrString field ${t.field} has wire type ${t.wire}, expected ${want}`);
    if (t.field === 1) type = r.varint(true);
    else if (t.field === 2) intVal = r.varint(true) | 0;
    else if (t.field === 3) strVal = r.bytes().toString('utf8');
    else r.skip(t.wire, t.field);
  }
  return type === 1 ? strVal : intVal;
};

export const SPECIAL_DECODERS: ReadonlyMap<string, Decoder> = new Map([
  ['meta/v1.Time', time],
  ['meta/v1.MicroTime', microTime],
  ['meta/v1.Duration', duration],
  ['meta/v1.FieldsV1', rawJson],
  ['runtime.RawExtension', rawJson],
  ['resource.Quantity', quantity],
  ['intstr.IntOrString', intOrString],
]);

// Encoders for the messages whose Go types marshal protobuf by hand (see special-messages.ts for decoding):
// Time/MicroTime as Timestamp{seconds, nanos} (nothing for the zero time), Duration as nanoseconds,
// FieldsV1/RawExtension as raw JSON, Quantity as its string, IntOrString as {type, intVal, strVal}.
import { parseGoDuration } from '@modelplane/apimachinery';
import { WIRE_VARINT } from './wire.ts';
import { WireWriter } from './wire-writer.ts';

type Encoder = (value: unknown) => Buffer;

const makeWriter = () => new WireWriter();

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|([+-])(\d{2}):(\d{2}))$/;

/** seconds since the Unix epoch and nanoseconds of an RFC 3339 time, or undefined when it is not one */
export function parseRfc3339(s: string): { seconds: bigint; nanos: number } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  let seconds = BigInt(Math.floor(d.getTime() / 1000));
  if (m[9]) seconds -= BigInt((m[9] === '-' ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60));
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

const time: Encoder = (v) => {
  const t = typeof v === 'string' ? parseRfc3339(v) : undefined;
  if (!t) return Buffer.alloc(0); // the zero time marshals to no bytes
  const w = makeWriter();
  w.tag(1, WIRE_VARINT);
  w.varint(t.seconds);
  w.tag(2, WIRE_VARINT);
  w.varint(t.nanos);
  return w.finish();
};

const duration: Encoder = (v) => {
  const w = makeWriter();
  w.tag(1, WIRE_VARINT);
  const parsed = typeof v === 'string' ? parseGoDuration(v) : undefined;
  w.varint(parsed && 'ns' in parsed ? parsed.ns : 0n);
  return w.finish();
};

const rawJson: Encoder = (v) => {
  if (v === undefined || v === null) return Buffer.alloc(0);
  const w = makeWriter();
  w.string(1, JSON.stringify(v));
  return w.finish();
};

const quantity: Encoder = (v) => {
  const w = makeWriter();
  w.string(1, typeof v === 'string' || typeof v === 'number' ? String(v) : '0');
  return w.finish();
};

const intOrString: Encoder = (v) => {
  const w = makeWriter();
  const isString = typeof v === 'string';
  w.tag(1, WIRE_VARINT);
  w.varint(isString ? 1 : 0);
  w.tag(2, WIRE_VARINT);
  w.varint(BigInt.asIntN(32, BigInt(typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0)));
  w.string(3, isString ? v : '');
  return w.finish();
};

export const SPECIAL_ENCODERS: ReadonlyMap<string, Encoder> = new Map([
  ['meta/v1.Time', time],
  ['meta/v1.MicroTime', time],
  ['meta/v1.Duration', duration],
  ['meta/v1.FieldsV1', rawJson],
  ['runtime.RawExtension', rawJson],
  ['resource.Quantity', quantity],
  ['intstr.IntOrString', intOrString],
]);

// Protocol-buffers wire format (https://protobuf.dev/programming-guides/encoding/): a bounds-checked reader
// over one message's bytes. Every failure names the byte offset, so a malformed body is easy to locate.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

const TWO_32 = 2 ** 32;

export class WireReader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as an unsigned 64-bit integer. */
  varint64(): bigint {
    const start = this.pos;
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new ProtobufError(`truncated varint at byte ${start}`);
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    throw new ProtobufError(`varint longer than 10 bytes at byte ${start}`);
  }

  /**
   * A varint as a JS number: exact up to 2^53; an int64/int32 sent as a negative two's-complement value
   * comes back negative when `signed`.
   */
  varint(signed = false): number {
    // Fast path: up to 4 bytes (28 bits) never needs BigInt.
    let result = 0;
    const start = this.pos;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= this.end) throw new ProtobufError(`truncated varint at byte ${start}`);
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
    }
    this.pos = start;
    const v = this.varint64();
    return Number(signed ? BigInt.asIntN(64, v) : v);
  }

  /** A length prefix, checked against the bytes that are left. */
  length(): number {
    const at = this.pos;
    const n = this.varint();
    if (n > this.end - this.pos) {
      throw new ProtobufError(
        `length ${n} at byte ${at} runs past the end of the enclosing message (${this.end - this.pos} bytes left)`,
      );
    }
    return n;
  }

  bytes(): Buffer {
    const n = this.length();
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A reader over the next length-delimited field (an embedded message or a packed run). */
  sub(): WireReader {
    const n = this.length();
    const r = new WireReader(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }

  fixed32(): Buffer {
    return this.take(4);
  }

  fixed64(): Buffer {
    return this.take(8);
  }

  private take(n: number): Buffer {
    if (this.end - this.pos < n) throw new ProtobufError(`truncated ${n * 8}-bit fixed value at byte ${this.pos}`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The next field key: field number and wire type. */
  tag(): { field: number; wire: number } {
    const at = this.pos;
    const key = this.varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new ProtobufError(`invalid field number 0 at byte ${at}`);
    if (wire > 5) throw new ProtobufError(`invalid wire type ${wire} for field ${field} at byte ${at}`);
    return { field, wire };
  }

  /** Skips a field's value, as protobuf parsers do for fields they do not know. */
  skip(wire: number, field: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_FIXED64:
        this.take(8);
        return;
      case WIRE_BYTES: {
        const n = this.length(); // read before advancing: `pos += length()` would add to the old pos
        this.pos += n;
        return;
      }
      case WIRE_FIXED32:
        this.take(4);
        return;
      case WIRE_START_GROUP: {
        // Iterative, so a body of deeply nested groups cannot exhaust the stack.
        const open = [field];
        while (open.length) {
          if (this.done) throw new ProtobufError(`unterminated group for field ${open[open.length - 1]}`);
          const t = this.tag();
          if (t.wire === WIRE_START_GROUP) open.push(t.field);
          else if (t.wire === WIRE_END_GROUP) {
            const expected = open.pop();
            if (t.field !== expected)
              throw new ProtobufError(`group for field ${expected} closed by field ${t.field} at byte ${this.pos}`);
          } else this.skip(t.wire, t.field);
        }
        return;
      }
      default:
        throw new ProtobufError(`unexpected end-group for field ${field} at byte ${this.pos}`);
    }
  }
}

/** Signed 64-bit value of a little-endian fixed64 as a number (exact to 2^53). */
export function fixed64ToNumber(b: Buffer, signed: boolean): number {
  const lo = b.readUInt32LE(0);
  const hi = signed ? b.readInt32LE(4) : b.readUInt32LE(4);
  return hi * TWO_32 + lo;
}

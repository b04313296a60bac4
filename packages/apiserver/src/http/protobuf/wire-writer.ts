// The protobuf wire writer behind the response encoders: varints, tags and length-delimited fields, with
// nested messages written to a writer of their own and then length-prefixed.
import { WIRE_BYTES } from './wire.ts';

export class WireWriter {
  private readonly parts: Buffer[] = [];
  private pending: number[] = [];

  private flush(): void {
    if (this.pending.length) {
      this.parts.push(Buffer.from(this.pending));
      this.pending = [];
    }
  }

  varint(v: number | bigint): void {
    if (typeof v === 'number' && v >= 0 && v < 2 ** 31 && Number.isInteger(v)) {
      let n = v;
      while (n >= 0x80) {
        this.pending.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      this.pending.push(n);
      return;
    }
    let n = BigInt.asUintN(64, BigInt(v));
    while (n >= 0x80n) {
      this.pending.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.pending.push(Number(n));
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, data: Buffer): void {
    this.tag(field, WIRE_BYTES);
    this.varint(data.length);
    this.flush();
    this.parts.push(data);
  }

  string(field: number, s: string): void {
    this.bytes(field, Buffer.from(s, 'utf8'));
  }

  raw(data: Buffer): void {
    this.flush();
    this.parts.push(data);
  }

  finish(): Buffer {
    this.flush();
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

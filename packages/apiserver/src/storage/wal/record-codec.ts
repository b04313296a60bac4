// Framing shared by the write-ahead log and snapshots. A data file is an 8-byte magic followed by records:
//
//   u32 LE payload length | u32 LE crc32(payload) | u32 LE crc32(the previous 8 bytes) | payload
//
// The header carries its own checksum so a damaged length is recognised as damage instead of being
// trusted, which lets the scanner tell "the file ends inside the last record" (a crash mid-append) from
// "a record in the middle is bad" (corruption that must stop startup) by looking for an intact record
// after the bad spot.
import { crc32 } from 'node:zlib';

export const HEADER_BYTES = 12;
export const MAGIC_BYTES = 8;
/** far above any object the API server accepts; a larger length is treated as damage */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** A data file that cannot be trusted: startup must fail rather than run with missing objects. */
export class DataFileCorruptError extends Error {
  constructor(
    readonly path: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`data file ${path} is corrupt at byte offset ${offset}: ${reason}`);
    this.name = 'DataFileCorruptError';
  }
}

export function encodeRecord(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.writeUInt32LE(crc32(out.subarray(0, 8)), 8);
  payload.copy(out, HEADER_BYTES);
  return out;
}

export interface ScannedRecord {
  /** where the record's header starts in the file */
  offset: number;
  payload: Buffer;
}

export interface TornTail {
  /** where the incomplete record starts; the file is valid up to here */
  offset: number;
  /** bytes from `offset` to the end of the file */
  bytes: number;
  reason: string;
}

export interface ScanResult {
  records: ScannedRecord[];
  /** offset just past the last intact record */
  validEnd: number;
  torn?: TornTail;
}

type Probe = { ok: true; length: number } | { ok: false; reason: string };

/** Checks the record starting at `offset` without reading anything past the end of `buf`. */
function probe(buf: Buffer, offset: number): Probe {
  const remaining = buf.length - offset;
  if (remaining < HEADER_BYTES)
    return { ok: false, reason: `${remaining} bytes left, less than a ${HEADER_BYTES}-byte record header` };
  if (buf.readUInt32LE(offset + 8) !== crc32(buf.subarray(offset, offset + 8)))
    return { ok: false, reason: 'record header checksum mismatch' };
  const length = buf.readUInt32LE(offset);
  if (length > MAX_RECORD_BYTES)
    return { ok: false, reason: `record length ${length} exceeds the ${MAX_RECORD_BYTES}-byte limit` };
  if (HEADER_BYTES + length > remaining)
    return {
      ok: false,
      reason: `record of ${length} bytes extends past the end of the file (${remaining - HEADER_BYTES} payload bytes present)`,
    };
  const payload = buf.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
  if (buf.readUInt32LE(offset + 4) !== crc32(payload)) return { ok: false, reason: 'record payload checksum mismatch' };
  return { ok: true, length };
}

/** Whether any intact record starts after `from`: if so, the damage at `from` is not a torn tail. */
function intactRecordAfter(buf: Buffer, from: number): number | undefined {
  for (let p = from + 1; p + HEADER_BYTES <= buf.length; p++) {
    const length = buf.readUInt32LE(p);
    if (length > buf.length - p - HEADER_BYTES) continue;
    if (probe(buf, p).ok) return p;
  }
  return undefined;
}

export function checkMagic(buf: Buffer, magic: Buffer, path: string): void {
  if (buf.length < MAGIC_BYTES)
    throw new DataFileCorruptError(path, 0, `file is ${buf.length} bytes, shorter than its ${MAGIC_BYTES}-byte header`);
  if (!buf.subarray(0, MAGIC_BYTES).equals(magic)) {
    throw new DataFileCorruptError(
      path,
      0,
      `file header is ${JSON.stringify(buf.subarray(0, MAGIC_BYTES).toString('latin1'))}, expected ${JSON.stringify(magic.toString('latin1'))}`,
    );
  }
}

/**
 * Reads every record after the magic. Damage followed by at least one intact record is corruption and
 * throws. Damage with nothing intact after it is a torn tail: returned when `allowTornTail` (the live end
 * of the newest log), thrown otherwise (snapshots and sealed logs were fsynced whole, so they cannot tear).
 */
export function scanRecords(buf: Buffer, path: string, allowTornTail: boolean): ScanResult {
  const records: ScannedRecord[] = [];
  let offset = MAGIC_BYTES;
  while (offset < buf.length) {
    const p = probe(buf, offset);
    if (p.ok) {
      records.push({ offset, payload: buf.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + p.length) });
      offset += HEADER_BYTES + p.length;
      continue;
    }
    const next = intactRecordAfter(buf, offset);
    if (next !== undefined)
      throw new DataFileCorruptError(path, offset, `${p.reason}, and an intact record follows at offset ${next}`);
    if (!allowTornTail)
      throw new DataFileCorruptError(path, offset, `${p.reason} (the file is truncated or damaged at its end)`);
    return { records, validEnd: offset, torn: { offset, bytes: buf.length - offset, reason: p.reason } };
  }
  return { records, validEnd: offset };
}

/** Parses a record's JSON payload; a checksummed record that is not JSON is corruption, never a torn tail. */
export function parsePayload(record: ScannedRecord, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(record.payload.toString('utf8'));
  } catch (e) {
    throw new DataFileCorruptError(path, record.offset, `record payload is not valid JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DataFileCorruptError(path, record.offset, 'record payload is not a JSON object');
  }
  return value as Record<string, unknown>;
}

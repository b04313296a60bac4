// Response bodies back into values, by Content-Type: JSON, YAML, Kubernetes protobuf (the runtime.Unknown
// envelope, its typeMeta giving apiVersion and kind) and protobuf watch streams (length-prefixed WatchEvents).
import { parse as parseYaml } from 'yaml';
import { decodeMessage } from '../../src/http/protobuf/decode-message.ts';
import { responseMessage } from '../../src/http/protobuf/encode.ts';
import { WireReader } from '../../src/http/protobuf/wire.ts';

export type Decoded = { ok: true; value: unknown } | { ok: false; error: string };

export const mediaTypeOf = (contentType: string) => contentType.split(';')[0]!.trim();

/** The runtime.Unknown envelope's object, with apiVersion and kind from its typeMeta. */
export function decodeEnvelope(buf: Buffer): Record<string, unknown> {
  if (buf.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new Error('no "k8s\\0" prefix');
  const r = new WireReader(buf, 4);
  let apiVersion = '';
  let kind = '';
  let raw: WireReader | undefined;
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1) {
      const tm = r.sub();
      while (!tm.done) {
        const f = tm.tag();
        if (f.field === 1) apiVersion = tm.bytes().toString();
        else if (f.field === 2) kind = tm.bytes().toString();
        else tm.skip(f.wire, f.field);
      }
    } else if (t.field === 2) raw = r.sub();
    else r.skip(t.wire, t.field);
  }
  const message = responseMessage(apiVersion, kind);
  if (!message) throw new Error(`the envelope names ${apiVersion} ${kind}, which has no protobuf schema`);
  return { apiVersion, kind, ...(decodeMessage(message, raw, kind) as Record<string, unknown>) };
}

export function decodeBody(buf: Buffer, contentType: string): Decoded {
  try {
    const type = mediaTypeOf(contentType);
    if (type === 'application/yaml') return { ok: true, value: parseYaml(buf.toString('utf8')) };
    if (type === 'application/vnd.kubernetes.protobuf') return { ok: true, value: decodeEnvelope(buf) };
    return { ok: true, value: JSON.parse(buf.toString('utf8')) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** The events of a protobuf watch stream; a frame cut off by the reader is left out. */
export function decodeProtobufWatch(
  buf: Buffer,
  cutOff: boolean,
): { events: { type: string; object: Record<string, unknown> }[]; problems: string[] } {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  const problems: string[] = [];
  let at = 0;
  while (at + 4 <= buf.length) {
    const len = buf.readUInt32BE(at);
    if (at + 4 + len > buf.length) break;
    try {
      const r = new WireReader(buf, at + 4, at + 4 + len);
      let type = '';
      let object: Record<string, unknown> = {};
      while (!r.done) {
        const t = r.tag();
        if (t.field === 1) type = r.bytes().toString();
        else if (t.field === 2) {
          const ext = r.sub();
          while (!ext.done) {
            const f = ext.tag();
            if (f.field === 1) object = decodeEnvelope(ext.bytes());
            else ext.skip(f.wire, f.field);
          }
        } else r.skip(t.wire, t.field);
      }
      events.push({ type, object });
    } catch (e) {
      problems.push(`protobuf watch frame at byte ${at} does not decode: ${(e as Error).message}`);
    }
    at += 4 + len;
  }
  if (!cutOff && at !== buf.length)
    problems.push(`protobuf watch stream ended inside a frame (${buf.length - at} bytes left)`);
  return { events, problems };
}

// Response bodies in Kubernetes protobuf: "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw, "", ""}
// with raw the object's own message, and watch streams of length-prefixed WatchEvent messages whose object is
// such an envelope (k8s.io/apimachinery/pkg/runtime/serializer/protobuf, LengthDelimitedFramer).
import { encodeMessage } from './encode-message.ts';
import { API_PACKAGES, KINDS, RESPONSE_KINDS } from './message-names.ts';
import { MESSAGES } from './messages.ts';
import { WireWriter } from './wire-writer.ts';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The messages.ts name that encodes apiVersion/kind, or undefined when there is none. */
export function responseMessage(apiVersion: string, kind: string): string | undefined {
  if (kind === 'Status') return 'meta/v1.Status';
  const pkg = apiVersion === 'meta.k8s.io/v1beta1' ? 'meta/v1' : API_PACKAGES[apiVersion];
  if (!pkg) return undefined;
  const kinds = RESPONSE_KINDS[apiVersion === 'meta.k8s.io/v1beta1' ? 'meta.k8s.io/v1' : apiVersion] ?? [];
  const base = kind.endsWith('List') ? kind.slice(0, -4) : kind;
  const known = kinds.includes(kind) || kinds.includes(base) || KINDS[apiVersion]?.includes(kind);
  const name = `${pkg}.${kind}`;
  return known && MESSAGES[name] !== undefined ? name : undefined;
}

/** The envelope for an object that carries its apiVersion and kind; throws when the kind has no schema. */
export function encodeKubeProtobuf(obj: Record<string, unknown>): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const message = responseMessage(apiVersion, kind);
  if (!message) throw new Error(`no protobuf encoding for ${apiVersion} ${kind}`);
  const typeMeta = new WireWriter();
  typeMeta.string(1, apiVersion);
  typeMeta.string(2, kind);
  const w = new WireWriter();
  w.raw(MAGIC);
  w.bytes(1, typeMeta.finish());
  w.bytes(2, encodeMessage(message, obj));
  w.string(3, '');
  w.string(4, '');
  return w.finish();
}

/** One frame of a protobuf watch stream: a 4-byte big-endian length, then WatchEvent{type, object: RawExtension}. */
export function encodeWatchFrame(type: string, object: Record<string, unknown>): Buffer {
  const raw = new WireWriter();
  raw.bytes(1, encodeKubeProtobuf(object));
  const event = new WireWriter();
  event.string(1, type);
  event.bytes(2, raw.finish());
  const body = event.finish();
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

// Request bodies in Kubernetes' protobuf encoding (what kubectl's typed clients send), decoded to the JSON
// object kube-apiserver would have received had the client sent JSON.
//
// Body = "k8s\0" + runtime.Unknown { typeMeta = 1 { apiVersion = 1, kind = 2 }, raw = 2, contentEncoding = 3,
// contentType = 4 }, where raw is the object's own message (k8s.io/apimachinery/pkg/runtime/serializer/protobuf).
import { decodeMessage } from './decode-message.ts';
import { API_PACKAGES, DELETE_OPTIONS, KINDS } from './message-names.ts';
import { ProtobufError, WireReader } from './wire.ts';

export { ProtobufError } from './wire.ts';

export const KUBE_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** True for `application/vnd.kubernetes.protobuf` (any parameters, any case). */
export function isKubeProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === KUBE_PROTOBUF_MEDIA_TYPE;
}

function supportedKinds(): string {
  const all = Object.entries(KINDS).flatMap(([v, kinds]) => kinds.map((k) => `${v} ${k}`));
  return `${all.join(', ')} and DeleteOptions`;
}

/** The messages.ts name for apiVersion/kind, or undefined. */
function messageFor(apiVersion: string, kind: string): string | undefined {
  if (kind === 'DeleteOptions') return DELETE_OPTIONS; // registered in every group version
  const pkg = API_PACKAGES[apiVersion];
  return pkg && KINDS[apiVersion]?.includes(kind) ? `${pkg}.${kind}` : undefined;
}

/**
 * Decodes a Kubernetes protobuf request body into a JSON object with apiVersion and kind first.
 * Throws ProtobufError naming the problem (bad prefix, truncated data with its byte offset and field path,
 * an unsupported kind with the list of supported ones).
 */
export function decodeKubeProtobuf(buf: Buffer): Record<string, unknown> {
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    const got = [...buf.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new ProtobufError(
      `not a Kubernetes protobuf body: it must start with the bytes 6b 38 73 00 ("k8s\\0"), got ${got || 'an empty body'}`,
    );
  }
  const r = new WireReader(buf, MAGIC.length);
  let apiVersion = '';
  let kind = '';
  let raw: WireReader | undefined;
  let contentEncoding = '';
  let contentType = '';
  try {
    while (!r.done) {
      const { field, wire } = r.tag();
      if (field >= 1 && field <= 4 && wire !== 2)
        throw new ProtobufError(`runtime.Unknown field ${field} has wire type ${wire}, expected 2`);
      if (field === 1) {
        const tm = r.sub();
        while (!tm.done) {
          const t = tm.tag();
          if (t.field <= 2 && t.wire !== 2)
            throw new ProtobufError(`typeMeta field ${t.field} has wire type ${t.wire}, expected 2`);
          if (t.field === 1) apiVersion = tm.bytes().toString('utf8');
          else if (t.field === 2) kind = tm.bytes().toString('utf8');
          else tm.skip(t.wire, t.field);
        }
      } else if (field === 2) raw = r.sub();
      else if (field === 3) contentEncoding = r.bytes().toString('utf8');
      else if (field === 4) contentType = r.bytes().toString('utf8');
      else r.skip(wire, field);
    }
  } catch (e) {
    throw new ProtobufError(`malformed runtime.Unknown envelope: ${(e as Error).message}`);
  }
  if (!kind) throw new ProtobufError('the runtime.Unknown envelope has no typeMeta.kind');
  if (contentEncoding)
    throw new ProtobufError(
      `unsupported contentEncoding ${JSON.stringify(contentEncoding)} in the runtime.Unknown envelope`,
    );
  if (contentType && !isKubeProtobuf(contentType)) {
    throw new ProtobufError(`unsupported contentType ${JSON.stringify(contentType)} in the runtime.Unknown envelope`);
  }
  const message = messageFor(apiVersion, kind);
  if (!message) {
    throw new ProtobufError(
      `no protobuf decoding for ${apiVersion || '(no apiVersion)'} ${kind}: send it as JSON; protobuf is supported for ${supportedKinds()}`,
    );
  }
  const body = decodeMessage(message, raw, kind) as Record<string, unknown>;
  return { apiVersion, kind, ...body };
}

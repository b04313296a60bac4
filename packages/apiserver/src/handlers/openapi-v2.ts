// /openapi/v2: a Swagger 2.0 document with no paths and no definitions, as JSON or as the protobuf kubectl asks
// for (gnostic's openapi.v2.Document). kubectl fetches it to validate what it cannot hand to the server: the
// items of a `kind: List`. It looks each item's kind up among the definitions and skips validating a kind it
// does not find, so every item goes to the server, which validates it (fieldValidation, the schemas of
// OpenAPI v3). No definitions on purpose: where kubectl finds one, its client-side apply computes strategic
// merge patches from that schema instead of its compiled-in types, and a schema without the merge keys
// would replace lists the compiled-in types merge (docs/apiserver.md, "Differences the fidelity suite shows").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KUBE_VERSION } from './openapi.ts';

/** what kube-openapi answers a protobuf request with (the `@` of the Accept type is no valid media type character) */
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** a length-delimited protobuf field (wire type 2) */
function field(num: number, payload: Buffer): Buffer {
  const len: number[] = [];
  let n = payload.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(num << 3) | 2, ...len]), payload]);
}

const str = (num: number, s: string) => field(num, Buffer.from(s, 'utf8'));

const INFO = { title: 'Kubernetes', version: KUBE_VERSION.gitVersion };

/** openapi.v2.Document{swagger: "2.0", info: {title, version}, paths: {}, definitions: {}} */
const PROTOBUF_DOC = Buffer.concat([
  str(1, '2.0'),
  field(2, Buffer.concat([str(1, INFO.title), str(2, INFO.version)])),
  field(8, Buffer.alloc(0)),
  field(9, Buffer.alloc(0)),
]);

const JSON_DOC = JSON.stringify({ swagger: '2.0', info: INFO, paths: {}, definitions: {} });

export function serveOpenApiV2(req: IncomingMessage, res: ServerResponse): number {
  const protobuf = (req.headers.accept ?? '').includes('application/com.github.proto-openapi.spec.v2');
  const body = protobuf ? PROTOBUF_DOC : Buffer.from(JSON_DOC);
  res.writeHead(200, { 'Content-Type': protobuf ? PROTOBUF : 'application/json', 'Content-Length': body.length });
  res.end(body);
  return 200;
}

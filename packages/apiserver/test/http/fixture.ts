// Byte-level HTTPS requests for the http-*.test.ts files: any method, headers and body, the answer as bytes
// (protobuf bodies are not text), a body that trickles out slowly, and a CRD to compare custom resources.
import { request } from 'node:https';
import type { ApiServer } from '../../src/index.ts';
import { raw } from '../../src/testing/index.ts';

export interface BytesResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json(): any;
}

export interface SendOptions {
  accept?: string;
  contentType?: string;
  userAgent?: string;
  body?: string | Buffer;
  /** write the body in this many pieces, `delayMs` apart */
  slow?: { pieces: number; delayMs: number };
  /** read a streaming answer for this long, then hang up */
  streamMs?: number;
}

export function send(s: ApiServer, method: string, path: string, o: SendOptions = {}): Promise<BytesResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Bearer ${s.adminToken}` };
    if (o.accept) headers.Accept = o.accept;
    if (o.contentType) headers['Content-Type'] = o.contentType;
    headers['User-Agent'] = o.userAgent ?? 'modelplane-tests';
    const body = o.body === undefined ? undefined : Buffer.from(o.body);
    if (body) headers['Content-Length'] = body.length;
    // (host and path apart: a URL string would have its dot segments resolved before sending)
    const req = request({ host: '127.0.0.1', port: s.port, path, method, ca: s.caPem, headers }, (res) => {
      const chunks: Buffer[] = [];
      const done = () => {
        const buf = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: buf,
          text: buf.toString('utf8'),
          json: () => JSON.parse(buf.toString('utf8')),
        });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', done);
      res.on('aborted', done);
      if (o.streamMs) {
        setTimeout(() => {
          done();
          req.destroy();
        }, o.streamMs);
      }
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    if (body && o.slow) {
      const size = Math.ceil(body.length / o.slow.pieces);
      let at = 0;
      const trickle = () => {
        if (req.destroyed || req.writableEnded) return;
        req.write(body.subarray(at, at + size));
        at += size;
        if (at < body.length) setTimeout(trickle, o.slow!.delayMs);
        else req.end();
      };
      trickle();
      return;
    }
    if (body) req.write(body);
    req.end();
  });
}

export const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

/** A namespaced `Widget` CRD with a free-form spec, served once this resolves. */
export async function createWidgetCrd(s: ApiServer): Promise<void> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  };
  const r = await raw(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (r.status !== 201) throw new Error(`creating the widget CRD failed: ${r.status} ${r.text}`);
  for (let i = 0; i < 100; i++) {
    if ((await raw(s, 'GET', WIDGETS)).status === 200) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the widget CRD was never served');
}

// Test fixture: a real HTTPS webhook server (node:https, certificate from a private CA made with tls.ts),
// whose answers each test scripts per path, and which records every AdmissionReview/ConversionReview it gets.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type CertificateAuthority, createCA } from '../../src/tls.ts';

export interface Received {
  path: string;
  body: any;
  at: number;
}

/** What a handler answers: a JSON body, or full control of status, content type and raw text. */
export type Answer = unknown | { raw: string; status?: number; contentType?: string } | { hang: true };

export type Handler = (body: any, req: IncomingMessage) => Answer | Promise<Answer>;

export interface WebhookServer {
  /** https://127.0.0.1:PORT */
  url: string;
  /** base64 PEM of the CA that signed the server certificate (a webhook clientConfig.caBundle) */
  caBundle: string;
  ca: CertificateAuthority;
  received: Received[];
  on(path: string, handler: Handler): void;
  /** requests received on a path */
  at(path: string): Received[];
  close(): Promise<void>;
}

export async function startWebhookServer(
  opts: { dnsNames?: string[]; ca?: CertificateAuthority } = {},
): Promise<WebhookServer> {
  const ca = opts.ca ?? (await createCA(undefined, 'webhook-test-ca'));
  const cert = await ca.issue('webhook', ['localhost', ...(opts.dnsNames ?? [])], ['127.0.0.1']);
  const handlers = new Map<string, Handler>();
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({ path, body, at: Date.now() });
      const handler = handlers.get(path);
      if (!handler) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('no handler');
        return;
      }
      const answer = (await handler(body, req)) as any;
      if (answer && answer.hang === true) {
        hanging.add(res);
        return;
      }
      if (answer && typeof answer.raw === 'string') {
        res.writeHead(answer.status ?? 200, { 'Content-Type': answer.contentType ?? 'application/json' });
        res.end(answer.raw);
        return;
      }
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    ca,
    received,
    on: (path, handler) => handlers.set(path, handler),
    at: (path) => received.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An AdmissionReview v1 answer for `review`. */
export function admissionAnswer(review: any, response: Record<string, unknown>): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: review.request.uid, ...response },
  };
}

export const allow = (review: any, extra: Record<string, unknown> = {}) =>
  admissionAnswer(review, { allowed: true, ...extra });

export const jsonPatch = (ops: unknown[]) => ({
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
});

/** A webhook entry for a configuration, pointing at `path` on the server. */
export function webhookEntry(
  server: WebhookServer,
  name: string,
  path: string,
  rest: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${server.url}${path}`, caBundle: server.caBundle },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...rest,
  };
}

export function configuration(
  kind: 'Mutating' | 'Validating',
  name: string,
  webhooks: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  };
}

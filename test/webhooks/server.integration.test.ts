// The HTTPS server itself: own endpoints, HTTP-level refusals (unknown path, wrong method, oversized
// bodies, streamed or declared), survival of garbage on the socket, parallel requests, registration
// mistakes caught at registration, and a certificate swap that new handshakes see at once.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { Registry } from 'prom-client';
import {
  generateCA,
  issueServingCert,
  type KeyPairPem,
  WebhookHttpServer,
  WebhookMetrics,
} from '../../src/webhooks/index.ts';
import { presentedCert } from './fixture.ts';

const DNS = ['hooks.test.svc'];
const spec = {
  name: 'vconfigmap.test.modelplane.io',
  rules: [{ operations: ['CREATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
};

interface Reply {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

function call(
  port: number,
  ca: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string | number> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        ca,
        servername: DNS[0],
        headers: { 'Content-Type': 'application/json', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** what the server writes back for `text` sent as is over TLS (a request no HTTP client would send) */
function rawExchange(port: number, ca: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = tlsConnect({ host: '127.0.0.1', port, ca, servername: DNS[0] }, () => s.end(text));
    s.on('data', (d) => (got += d));
    s.on('end', () => resolve(got));
    s.on('error', reject);
  });
}

const reviewBody = (name: string) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${name}`,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      operation: 'CREATE',
      userInfo: {},
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} },
    },
  });

describe('WebhookHttpServer', () => {
  let ca: KeyPairPem;
  let server: WebhookHttpServer;
  let port: number;
  let ready: string | undefined = 'warming up';
  const metrics = new WebhookMetrics(new Registry());

  before(async () => {
    ca = await generateCA({ commonName: 'server-test-ca', lifetimeMs: 3_600_000 });
    const serving = await issueServingCert(ca, {
      commonName: DNS[0]!,
      dnsNames: DNS,
      ips: ['127.0.0.1'],
      lifetimeMs: 3_600_000,
    });
    server = new WebhookHttpServer({
      cert: serving.certPem,
      key: serving.keyPem,
      metrics,
      logger: new Logger({}, 'silent'),
      maxBodyBytes: 64 * 1024,
      notReady: () => ready,
    });
    server.validating('/validate', spec, (r) =>
      r.object?.metadata.name === 'bad' ? { errors: [{ field: 'metadata.name', message: 'bad name' }] } : undefined,
    );
    port = await server.listen(0, '127.0.0.1');
  });
  after(() => server.close());

  it('answers /healthz always and /readyz only when ready', async () => {
    assert.deepEqual((await call(port, ca.certPem, 'GET', '/healthz')).status, 200);
    const notReady = await call(port, ca.certPem, 'GET', '/readyz');
    assert.deepEqual([notReady.status, notReady.body], [503, 'not ready: warming up\n']);
    ready = undefined;
    assert.equal((await call(port, ca.certPem, 'GET', '/readyz')).status, 200);
  });

  it('answers a review and counts it', async () => {
    const r = await call(port, ca.certPem, 'POST', '/validate', reviewBody('bad'));
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).response.status.message, 'bad name');
    const m = await call(port, ca.certPem, 'GET', '/metrics');
    assert.match(m.body, /controller_runtime_webhook_requests_total\{webhook="\/validate",code="403"\} 1/);
    assert.match(m.body, /modelplane_webhook_results_total\{webhook="\/validate",result="denied"\} 1/);
    assert.match(m.body, /modelplane_webhook_request_duration_seconds_count\{webhook="\/validate",result="denied"\} 1/);
  });

  it('refuses unknown paths and methods other than POST with a Status', async () => {
    const missing = await call(port, ca.certPem, 'POST', '/nope', reviewBody('x'));
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).message, 'no webhook is registered at /nope');
    const get = await call(port, ca.certPem, 'GET', '/validate');
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
  });

  it('refuses bodies over the limit, declared or streamed, and keeps serving', async () => {
    const big = Buffer.alloc(100 * 1024, 'a');
    const declared = await call(port, ca.certPem, 'POST', '/validate', big);
    assert.equal(declared.status, 413);
    assert.deepEqual(
      [JSON.parse(declared.body).reason, JSON.parse(declared.body).message],
      ['RequestEntityTooLarge', "the request body is larger than the webhook server's limit of 65536 bytes"],
    );
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/validate',
          ca: ca.certPem,
          servername: DNS[0],
          headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
          agent: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write(big.subarray(0, 16 * 1024));
      req.end();
    });
    assert.equal(streamed, 413);
    assert.equal((await call(port, ca.certPem, 'POST', '/validate', reviewBody('fine'))).status, 200);
    // the boundary's refusals are counted under the webhook they were aimed at
    const m = await call(port, ca.certPem, 'GET', '/metrics');
    assert.match(m.body, /controller_runtime_webhook_requests_total\{webhook="\/validate",code="413"\} 2/);
  });

  it('answers a target that is not a URL with a 400 Status, and keeps serving', async () => {
    const raw = await rawExchange(port, ca.certPem, 'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(raw, /^HTTP\/1\.1 400 /);
    const status = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(
      [status.kind, status.code, status.message],
      ['Status', 400, 'the request target "http://[" is not a URL path'],
    );
    assert.equal((await call(port, ca.certPem, 'POST', '/validate', reviewBody('after-bad-target'))).status, 200);
  });

  it('survives plaintext HTTP and random bytes on the TLS port', async () => {
    for (const junk of ['POST /validate HTTP/1.1\r\nHost: x\r\n\r\n', '\x16\x03\x01\x00\x05hello-garbage']) {
      await new Promise<void>((resolve) => {
        const s = netConnect(port, '127.0.0.1', () => s.end(junk));
        s.on('error', () => resolve());
        s.on('close', () => resolve());
        s.resume();
      });
    }
    assert.equal((await call(port, ca.certPem, 'POST', '/validate', reviewBody('after-junk'))).status, 200);
  });

  it('answers many requests in parallel, each with its own uid', async () => {
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(port, ca.certPem, 'POST', '/validate', reviewBody(`p${i}`))),
    );
    assert.deepEqual(
      replies.map((r) => JSON.parse(r.body).response.uid),
      Array.from({ length: 30 }, (_, i) => `uid-p${i}`),
    );
  });

  it('catches registration mistakes when they are made', () => {
    assert.throws(
      () => server.validating('/validate', spec, () => undefined),
      /webhook path \/validate is already registered \(validating\)/,
    );
    assert.throws(() => server.mutating('/healthz', spec, () => undefined), /reserved/);
    assert.throws(() => server.mutating('relative', spec, () => undefined), /must start with \//);
    assert.throws(
      () => server.validating('/v2', { ...spec, name: 'short.name' }, () => undefined),
      /must be a fully qualified name of at least three/,
    );
    assert.throws(
      () => server.validating('/v3', { ...spec, rules: [] }, () => undefined),
      /rules must name at least one resource/,
    );
    assert.throws(
      () => server.validating('/v4', { ...spec, rules: [{ ...spec.rules[0]!, resources: [] }] }, () => undefined),
      /rules\[0\]\.resources must be a non-empty list/,
    );
  });

  it('serves a swapped certificate on the next handshake without a restart', async () => {
    const first = await presentedCert(port, ca.certPem, DNS[0]!);
    const next = await issueServingCert(ca, {
      commonName: DNS[0]!,
      dnsNames: DNS,
      ips: ['127.0.0.1'],
      lifetimeMs: 3_600_000,
    });
    server.setCertificate(next.certPem, next.keyPem);
    const second = await presentedCert(port, ca.certPem, DNS[0]!);
    assert.notEqual(second.fingerprint256, first.fingerprint256);
    assert.equal(second.toString(), next.certPem.trim() + '\n');
  });
});

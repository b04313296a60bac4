// Webhooks that cannot be used: unreachable, timing out, answering garbage or the wrong review, failing TLS
// verification, unresolvable Service references. Each follows failurePolicy with kube-apiserver's exact
// message, and no request waits longer than the webhook's timeoutSeconds.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WebhookAdmission } from '../../src/admission/index.ts';
import { partsOf } from '../../src/handle.ts';
import { type ApiServer, ServiceEndpoints, startApiServer } from '../../src/index.ts';
import { raw } from '../../src/testing/index.ts';
import { createCA } from '../../src/tls.ts';
import {
  admissionAnswer,
  allow,
  configuration,
  type Handler,
  jsonPatch,
  startWebhookServer,
  type WebhookServer,
  webhookEntry,
} from './fixture.ts';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const RULES = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('admission webhook failures', () => {
  let s: ApiServer;
  let hooks: WebhookServer;
  let strangers: WebhookServer;
  let deadPort: number;
  const logged: string[] = [];
  const endpoints = new ServiceEndpoints();

  before(async () => {
    s = await startApiServer({ port: 0, warn: (m) => logged.push(m), serviceEndpoints: endpoints });
    assert.ok(partsOf(s).core.admission instanceof WebhookAdmission, 'the server admits through webhooks by default');
    hooks = await startWebhookServer({ dnsNames: ['hooks.webhooks.svc'] });
    // a server whose certificate comes from a CA nobody trusts
    strangers = await startWebhookServer({ ca: await createCA(undefined, 'stranger-ca') });
    deadPort = await closedPort();
    endpoints.register('webhooks', 'hooks', 443, hooks.url);
    endpoints.register('webhooks', 'wrong-name', 8443, hooks.url);
    await raw(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'webhooks' } });
    await raw(s, 'POST', '/api/v1/namespaces/webhooks/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'no-endpoints' },
      spec: { ports: [{ port: 443 }] },
    });
  });
  after(async () => {
    await s.close();
    await hooks.close();
    await strangers.close();
  });

  interface Case {
    name: string;
    handler?: Handler;
    /** overrides of the webhook entry; `url` is a shortcut for clientConfig.url on the test server */
    webhook?: (path: string) => Record<string, unknown>;
    dryRun?: boolean;
    status: number;
    message?: string | RegExp;
    /** [min, max] milliseconds the request may take */
    took?: [number, number];
  }
  const hang: Handler = () => ({ hang: true });
  const cases: Case[] = [
    {
      name: 'unreachable, Fail: 500 naming the webhook and the dial error',
      webhook: () => ({ clientConfig: { url: `https://127.0.0.1:${deadPort}/validate`, caBundle: hooks.caBundle } }),
      status: 500,
      message: `Internal error occurred: failed calling webhook "w1.example.com": failed to call webhook: Post "https://127.0.0.1:${'PORT'}/validate?timeout=10s": dial tcp 127.0.0.1:${'PORT'}: connect: connection refused`,
    },
    {
      name: 'unreachable, Ignore: admitted',
      webhook: () => ({
        failurePolicy: 'Ignore',
        clientConfig: { url: `https://127.0.0.1:${deadPort}/v`, caBundle: hooks.caBundle },
      }),
      status: 201,
    },
    {
      name: 'no answer within timeoutSeconds, Fail: 500 after about that long',
      handler: hang,
      webhook: () => ({ timeoutSeconds: 1 }),
      status: 500,
      message:
        /^Internal error occurred: failed calling webhook "w3\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/f\/2\?timeout=1s": context deadline exceeded$/,
      took: [900, 2500],
    },
    {
      name: 'no answer within timeoutSeconds, Ignore: admitted after about that long',
      handler: hang,
      webhook: () => ({ timeoutSeconds: 1, failurePolicy: 'Ignore' }),
      status: 201,
      took: [900, 2500],
    },
    {
      name: 'a text/plain answer',
      handler: () => ({ raw: 'hello', contentType: 'text/plain' }),
      status: 500,
      message:
        /failed calling webhook "w5\.example\.com": failed to call webhook: serializer for text\/plain doesn't exist$/,
    },
    {
      name: 'JSON that is not JSON',
      handler: () => ({ raw: '<html>oops</html>' }),
      status: 500,
      message:
        /failed to call webhook: couldn't get version\/kind; json parse error: invalid character '<' looking for beginning of value$/,
    },
    {
      name: 'an empty body',
      handler: () => ({ raw: '' }),
      status: 500,
      message: /failed to call webhook: 0-length response with status code: 200 and content type: application\/json$/,
    },
    {
      name: 'an HTTP 500',
      handler: () => ({ raw: 'boom', status: 500, contentType: 'text/plain' }),
      status: 500,
      message: /failed to call webhook: an error on the server \("boom"\) has prevented the request from succeeding$/,
    },
    {
      name: 'a review without a response',
      handler: () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
      status: 500,
      message: /received invalid webhook response: webhook response was absent$/,
    },
    {
      name: 'a response for another request',
      handler: () => ({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'nope', allowed: true },
      }),
      status: 500,
      message: /received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "nope"$/,
    },
    {
      name: 'a review of another version',
      handler: (r) => ({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        response: { uid: r.request.uid, allowed: true },
      }),
      status: 500,
      message:
        /received invalid webhook response: expected webhook response of admission\.k8s\.io\/v1, Kind=AdmissionReview, got admission\.k8s\.io\/v1beta1, Kind=AdmissionReview$/,
    },
    {
      name: 'a validating webhook returning a patch',
      handler: (r) => allow(r, jsonPatch([{ op: 'add', path: '/data/x', value: 'y' }])),
      status: 500,
      message: /received invalid webhook response: validating webhook may not return response\.patch$/,
    },
    {
      name: 'garbage under Ignore is admitted',
      handler: () => ({ raw: '<html>' }),
      webhook: () => ({ failurePolicy: 'Ignore' }),
      status: 201,
    },
    {
      name: 'a certificate from an untrusted CA',
      webhook: (p) => ({ clientConfig: { url: `${strangers.url}${p}`, caBundle: hooks.caBundle } }),
      status: 500,
      message:
        /failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/f\/13\?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    },
    {
      name: 'a Service reference goes to the registered endpoint, verified as <name>.<namespace>.svc',
      handler: (r) => allow(r),
      webhook: (p) => ({
        clientConfig: { service: { namespace: 'webhooks', name: 'hooks', path: p }, caBundle: hooks.caBundle },
      }),
      status: 201,
    },
    {
      name: 'a Service whose certificate lacks its DNS name',
      handler: (r) => allow(r),
      webhook: (p) => ({
        clientConfig: {
          service: { namespace: 'webhooks', name: 'wrong-name', path: p, port: 8443 },
          caBundle: hooks.caBundle,
        },
      }),
      status: 500,
      message:
        /failed to call webhook: Post "https:\/\/wrong-name\.webhooks\.svc:8443\/f\/15\?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for localhost, hooks\.webhooks\.svc, not wrong-name\.webhooks\.svc$/,
    },
    {
      name: 'a Service nobody registered',
      webhook: () => ({ clientConfig: { service: { namespace: 'webhooks', name: 'nope' }, caBundle: hooks.caBundle } }),
      status: 500,
      message:
        'Internal error occurred: failed calling webhook "w17.example.com": failed to call webhook: Post "https://nope.webhooks.svc:443/?timeout=10s": service "nope" not found',
    },
    {
      name: 'a Service that exists but has no registered endpoint',
      webhook: () => ({
        clientConfig: {
          service: { namespace: 'webhooks', name: 'no-endpoints', path: '/x' },
          caBundle: hooks.caBundle,
        },
      }),
      status: 500,
      message:
        /Post "https:\/\/no-endpoints\.webhooks\.svc:443\/x\?timeout=10s": no endpoints available for service "no-endpoints"$/,
    },
    {
      name: 'a caBundle that is not PEM',
      webhook: (p) => ({ clientConfig: { url: `${hooks.url}${p}`, caBundle: Buffer.from('nope').toString('base64') } }),
      status: 500,
      message:
        /failed calling webhook "w19\.example\.com": could not get REST client: unable to load root certificates: unable to parse bytes as PEM block$/,
    },
    {
      name: 'no AdmissionReview version in common',
      handler: (r) => allow(r),
      webhook: () => ({ admissionReviewVersions: ['v9'] }),
      status: 500,
      message: /could not create admission objects: webhook does not accept known AdmissionReview versions$/,
    },
    {
      name: 'a dry run never reaches a webhook with side effects, whatever its failurePolicy',
      handler: (r) => allow(r),
      webhook: () => ({ sideEffects: 'Some', failurePolicy: 'Ignore' }),
      dryRun: true,
      status: 400,
      message: 'admission webhook "w21.example.com" does not support dry run',
    },
    {
      name: 'a dry run reaches a NoneOnDryRun webhook',
      handler: (r) => (r.request.dryRun === true ? allow(r) : admissionAnswer(r, { allowed: false })),
      webhook: () => ({ sideEffects: 'NoneOnDryRun' }),
      dryRun: true,
      status: 201,
    },
  ];

  cases.forEach((c, i) => {
    it(c.name, async () => {
      const path = `/f/${i}`;
      if (c.handler) hooks.on(path, c.handler);
      if (c.handler) strangers.on(path, c.handler);
      const entry = webhookEntry(hooks, `w${i + 1}.example.com`, path, { rules: RULES, ...(c.webhook?.(path) ?? {}) });
      const made = await raw(s, 'POST', VWC, configuration('Validating', `fail-${i}`, [entry]));
      assert.equal(made.status, 201, made.text);
      try {
        const start = Date.now();
        const res = await raw(
          s,
          'POST',
          `/api/v1/namespaces/default/configmaps${c.dryRun ? '?dryRun=All' : ''}`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } },
          { timeoutMs: 40_000 },
        );
        const took = Date.now() - start;
        assert.equal(res.status, c.status, res.text);
        if (c.message !== undefined) {
          const status = res.json();
          const want = typeof c.message === 'string' ? c.message.replaceAll('PORT', String(deadPort)) : c.message;
          if (typeof want === 'string') assert.equal(status.message, want);
          else assert.match(status.message, want);
          if (c.status === 500) {
            assert.equal(status.reason, 'InternalError');
            assert.equal(status.details.causes[0].message, status.message.replace(/^Internal error occurred: /, ''));
          }
        }
        if (c.took)
          assert.ok(took >= c.took[0] && took <= c.took[1], `took ${took} ms, expected ${c.took[0]}..${c.took[1]}`);
      } finally {
        await raw(s, 'DELETE', `${VWC}/fail-${i}`);
      }
    });
  });

  it('logs every webhook that failed open', () => {
    assert.ok(
      logged.some((m) =>
        m.startsWith(
          'Failed calling webhook, failing open w2.example.com: failed calling webhook "w2.example.com": failed to call webhook: Post',
        ),
      ),
      logged.join('\n'),
    );
    assert.ok(
      logged.some((m) => m.includes('w4.example.com') && m.includes('context deadline exceeded')),
      logged.join('\n'),
    );
  });
});

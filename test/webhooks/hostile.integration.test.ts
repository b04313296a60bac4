// The webhook server under the malformed traffic every listening port must survive
// (test/helpers/hostile-cases.ts, docs/security.md), sent over TLS to a registered webhook path: each case
// gets the answer the shared error boundary gives (strict), never a 5xx, and after each the server still
// answers a good AdmissionReview. Slow partial header blocks are cut within the stated 10 s deadline.
// Seeded: FUZZ_SEED=<n> repeats a run (the seed is printed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { Registry } from 'prom-client';
import { generateCA, issueServingCert, WebhookHttpServer, WebhookMetrics } from '../../src/webhooks/index.ts';
import { attack, hostileCases, slowHeaders } from '../helpers/hostile-cases.ts';
import { httpRequest, type Target } from '../helpers/hostile-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MAX_BODY = 64 * 1024;
const spec = {
  name: 'vconfigmap.test.modelplane.io',
  rules: [{ operations: ['CREATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
};
const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'uid-good',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    operation: 'CREATE',
    userInfo: {},
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good' }, data: {} },
  },
});

describe(`the webhook server survives hostile traffic (FUZZ_SEED=${SEED})`, { timeout: 300_000 }, () => {
  let server: WebhookHttpServer;
  let target: Target;

  /** a good review is still allowed, with its own uid */
  const stillServing = async (): Promise<string | undefined> => {
    try {
      const r = await httpRequest({
        ...target,
        method: 'POST',
        path: '/validate',
        headers: { 'Content-Type': 'application/json' },
        body: review,
      });
      const uid = r.status === 200 ? JSON.parse(r.body).response?.uid : undefined;
      return uid === 'uid-good' ? undefined : `a good review got ${r.status}: ${r.body.slice(0, 200)}`;
    } catch (err) {
      return `a good review failed: ${(err as Error).message}`;
    }
  };

  before(async () => {
    process.stderr.write(`[fuzz] FUZZ_SEED=${SEED}\n`);
    const ca = await generateCA({ commonName: 'hostile-test-ca', lifetimeMs: 3_600_000 });
    const serving = await issueServingCert(ca, {
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ips: ['127.0.0.1'],
      lifetimeMs: 3_600_000,
    });
    server = new WebhookHttpServer({
      cert: serving.certPem,
      key: serving.keyPem,
      metrics: new WebhookMetrics(new Registry()),
      logger: new Logger({}, 'silent'),
      maxBodyBytes: MAX_BODY,
    });
    server.validating('/validate', spec, () => undefined);
    const port = await server.listen(0, '127.0.0.1');
    target = { host: '127.0.0.1', port, tls: { ca: ca.certPem } };
  });
  after(() => server.close());

  it('answers each malformed request as the shared boundary does, never a 5xx, and keeps serving', async () => {
    assert.equal(await stillServing(), undefined);
    const cases = hostileCases({
      host: `127.0.0.1:${target.port}`,
      path: '/validate',
      maxBodyBytes: MAX_BODY,
      seed: SEED,
      mutations: 40,
    });
    const report = await attack(target, cases, stillServing, { strict: true });
    process.stderr.write(
      `[fuzz] webhooks: ${cases.length} cases; ${[...report.outcomes].map(([k, n]) => `${k}×${n}`).join(' ')}\n`,
    );
    assert.deepEqual(report.problems, [], `FUZZ_SEED=${SEED}`);
    assert.ok(!report.outcomes.has('silent'), 'every case was answered or closed');
  });

  it('cuts slow partial header blocks within its 10 s deadline while it keeps serving', async () => {
    const s = { host: `127.0.0.1:${target.port}`, path: '/validate', seed: SEED, mutations: 0 };
    assert.deepEqual(await slowHeaders(target, s, 20_000, stillServing, 3), []);
  });
});

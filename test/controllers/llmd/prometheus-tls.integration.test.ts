// The autoscaler's Prometheus client over TLS: a server with its own CA that requires a client certificate
// is reachable only with PROMETHEUS_CA_CERT_PATH and the client certificate; a wrong server name, a missing
// CA or a missing client certificate fail with the reason; PROMETHEUS_TLS_INSECURE_SKIP_VERIFY works and is
// warned about; a bad path stops the start naming the variable.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCA } from '@modelplane/apiserver/testing';
import { queryPrometheus } from '@modelplane/runtime/prometheus';
import { prometheusAuthFromEnv } from '../../../src/controllers/llmd/metrics-source/tls.ts';

describe('Prometheus over TLS', () => {
  let server: Server;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'prom-tls-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const serverCa = await createCA(undefined, 'prometheus-ca');
    const clientCa = await createCA(undefined, 'prometheus-client-ca');
    const serving = await serverCa.issue('prometheus', ['prometheus.monitoring.svc'], ['127.0.0.1']);
    const client = await clientCa.issue('wva', [], []);
    server = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: clientCa.certPem, requestCert: true, rejectUnauthorized: true },
      (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            status: 'success',
            data: { resultType: 'vector', result: [{ metric: {}, value: [1, '7'] }] },
          }),
        );
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env = {
      PROMETHEUS_CA_CERT_PATH: file('ca.crt', serverCa.certPem),
      PROMETHEUS_CLIENT_CERT_PATH: file('tls.crt', client.certPem),
      PROMETHEUS_CLIENT_KEY_PATH: file('tls.key', client.keyPem),
    };
  });
  after(() => server.close());

  const query = (e: NodeJS.ProcessEnv) =>
    queryPrometheus({ baseUrl: url, ...prometheusAuthFromEnv(e, () => undefined) }, 'up');

  it('the CA and the client certificate reach it', async () => {
    assert.equal((await query(env))[0]?.value[1], '7');
  });
  it('without the CA the server is not trusted', async () => {
    await assert.rejects(
      query({ ...env, PROMETHEUS_CA_CERT_PATH: '' }),
      /unreachable: .*(self-signed|unable to verify|certificate)/i,
    );
  });
  it('without the client certificate the server refuses', async () => {
    await assert.rejects(query({ PROMETHEUS_CA_CERT_PATH: env.PROMETHEUS_CA_CERT_PATH }), /unreachable/);
  });
  it('PROMETHEUS_SERVER_NAME is checked against the certificate', async () => {
    assert.equal((await query({ ...env, PROMETHEUS_SERVER_NAME: 'prometheus.monitoring.svc' }))[0]?.value[1], '7');
    await assert.rejects(
      query({ ...env, PROMETHEUS_SERVER_NAME: 'elsewhere.example' }),
      /unreachable: .*elsewhere\.example/,
    );
  });
  it('insecure-skip-verify trusts any server, with a warning', async () => {
    const warnings: string[] = [];
    const auth = prometheusAuthFromEnv(
      { ...env, PROMETHEUS_CA_CERT_PATH: '', PROMETHEUS_TLS_INSECURE_SKIP_VERIFY: 'true' },
      (m) => warnings.push(m),
    );
    assert.equal((await queryPrometheus({ baseUrl: url, ...auth }, 'up'))[0]?.value[1], '7');
    assert.match(
      warnings.join(),
      /PROMETHEUS_TLS_INSECURE_SKIP_VERIFY is set: the Prometheus server certificate is not verified/,
    );
    assert.deepEqual(prometheusAuthFromEnv(env, (m) => warnings.push(m)).tls?.insecureSkipVerify, undefined);
  });
  it('a path that cannot be read, or half a client key pair, stops the start naming the variable', () => {
    assert.throws(
      () => prometheusAuthFromEnv({ PROMETHEUS_CA_CERT_PATH: join(dir, 'nope.crt') }),
      /PROMETHEUS_CA_CERT_PATH=.*nope\.crt cannot be read \(ENOENT\)/,
    );
    assert.throws(
      () => prometheusAuthFromEnv({ PROMETHEUS_CLIENT_CERT_PATH: env.PROMETHEUS_CLIENT_CERT_PATH }),
      /go together/,
    );
  });
  it('PROMETHEUS_BEARER_TOKEN beats PROMETHEUS_TOKEN_PATH', () => {
    const path = file('token', 'from-file\n');
    assert.equal(prometheusAuthFromEnv({ PROMETHEUS_TOKEN_PATH: path }).bearerToken, 'from-file');
    assert.equal(
      prometheusAuthFromEnv({ PROMETHEUS_TOKEN_PATH: path, PROMETHEUS_BEARER_TOKEN: 'env' }).bearerToken,
      'env',
    );
  });
});

// The OCI registry client over HTTP: against the simulated registry (the Distribution API with the Bearer
// token flow, image index → manifest → config labels, Link-header pagination, private repositories) and
// against small servers in this file for what the simulation does not do (Basic challenges, outages,
// silence, redirects). Credentials come from docker-config Secrets through the client's SecretSource.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RegistryError } from '@modelplane/runtime/registry';
import { SIM_MODEL_IMAGES, simImageLabels } from '@modelplane/sim/registry';
import {
  SIM_REGISTRY_PASSWORD,
  SIM_REGISTRY_USERNAME,
  type SimRegistryServer,
  startSimRegistryServer,
} from '@modelplane/sim/registry/server';
import { OciRegistryClient, type SecretSource } from '../../../src/controllers/aim/catalog/oci/client.ts';
import {
  credentialHost,
  credentialsFor,
  nextPageUrl,
  parseChallenge,
} from '../../../src/controllers/aim/catalog/oci/credentials.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const dockerConfig = (auths: Record<string, unknown>) => ({
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) },
});
const SECRETS: Record<string, ReturnType<typeof dockerConfig> | { type: string; data: Record<string, string> }> = {
  'aim-system/regcred': dockerConfig({
    'https://index.docker.io/v1/': { auth: b64(`${SIM_REGISTRY_USERNAME}:${SIM_REGISTRY_PASSWORD}`) },
  }),
  'aim-system/wrong': dockerConfig({ 'docker.io': { username: SIM_REGISTRY_USERNAME, password: 'nope' } }),
  'aim-system/other-host': dockerConfig({ 'ghcr.io': { username: 'x', password: 'y' } }),
  'aim-system/opaque': { type: 'Opaque', data: { token: b64('x') } },
};
const secrets: SecretSource = async (ns, name) => SECRETS[`${ns}/${name}`];
const pull = (...names: string[]) => ({ pullSecrets: names, namespace: 'aim-system' });

async function rejects(p: Promise<unknown>, kind: RegistryError['kind'], message: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof RegistryError, `a RegistryError, got ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, message);
    return true;
  });
}

describe('OCI registry client against the simulated registry', () => {
  let sim: SimRegistryServer;
  let client: OciRegistryClient;
  before(async () => {
    sim = await startSimRegistryServer({ maxPageSize: 2 });
    client = new OciRegistryClient({ mirrors: { 'docker.io': sim.url }, secrets, timeoutMs: 5000 });
  });
  after(() => sim?.close());

  it('image labels: tag → index → linux/amd64 manifest → config blob, behind a Bearer challenge', async () => {
    const qwen = SIM_MODEL_IMAGES[0]!;
    const labels = await client.imageLabels(`docker.io/${qwen.repository}:0.8.4`);
    assert.deepEqual(labels, simImageLabels(qwen, '0.8.4'));
    // the same through the other spellings of Docker Hub and with no host at all
    assert.deepEqual(await client.imageLabels(`index.docker.io/${qwen.repository}:0.8.4`), labels);
    assert.deepEqual(await client.imageLabels(`${qwen.repository}:0.8.4`), labels);
    assert.ok(sim.requests.includes('/token'), 'a token was fetched');
  });

  it('catalog and tags follow the Link header page by page; anonymous callers do not see private repositories', async () => {
    const before = sim.requests.filter((p) => p === '/v2/_catalog').length;
    const repos = await client.listRepositories('docker.io', undefined, 'amdenterpriseai/');
    const publicRepos = SIM_MODEL_IMAGES.filter((i) => !i.private).map((i) => i.repository);
    assert.deepEqual(repos, [...publicRepos].sort());
    assert.ok(sim.requests.filter((p) => p === '/v2/_catalog').length - before >= 3, 'several pages of 2');
    assert.deepEqual(await client.listRepositories('docker.io', undefined, 'amdenterpriseai/aim-qwen'), [
      'amdenterpriseai/aim-qwen-qwen3-32b',
      'amdenterpriseai/aim-qwen-qwen3-8b',
    ]);
    const withCreds = await client.listRepositories('docker.io', pull('regcred'));
    assert.ok(withCreds.includes('amdenterpriseai/aim-private-model'));
    assert.deepEqual(await client.listTags('docker.io', 'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct'), [
      '0.8.3',
      '0.8.5',
      'latest',
    ]);
  });

  it('a private repository needs the pull secret; wrong or missing credentials are Auth errors naming the secret', async () => {
    const image = 'docker.io/amdenterpriseai/aim-private-model:0.9.0';
    await rejects(client.imageLabels(image), 'Auth', /401 UNAUTHORIZED: authentication required; pulled anonymously/);
    await rejects(
      client.listTags('docker.io', 'amdenterpriseai/aim-private-model', pull('other-host')),
      'Auth',
      /anonymously/,
    );
    assert.equal(
      (await client.imageLabels(image, pull('other-host', 'regcred')))['com.amd.aim.model.canonicalName'],
      'example/private',
    );
    await rejects(
      client.listTags('docker.io', 'amdenterpriseai/aim-private-model', pull('wrong')),
      'Auth',
      /token for docker\.io .*401 UNAUTHORIZED: incorrect username or password: the credentials from Secret aim-system\/wrong were refused/,
    );
    await rejects(
      client.imageLabels(image, pull('missing')),
      'Auth',
      /pull secret aim-system\/missing not found: create it/,
    );
    await rejects(
      client.imageLabels(image, pull('opaque')),
      'Auth',
      /Secret aim-system\/opaque has neither \.dockerconfigjson nor \.dockercfg/,
    );
  });

  it('unknown repositories and tags are NotFound with the registry message', async () => {
    await rejects(
      client.listTags('docker.io', 'amdenterpriseai/nothing'),
      'NotFound',
      /404 NAME_UNKNOWN: repository name not known/,
    );
    await rejects(client.imageLabels('amdenterpriseai/aim-qwen-qwen3-8b:9.9.9'), 'NotFound', /MANIFEST_UNKNOWN/);
  });

  it('docker.io without a mirror has no catalog: a pattern must start with a namespace', async () => {
    const hub = new OciRegistryClient();
    await rejects(
      hub.listRepositories('docker.io', undefined, 'aim-'),
      'Invalid',
      /docker\.io has no catalog: .*"aim-\*"/,
    );
  });
});

/** a registry stand-in whose every answer the test decides */
async function fakeRegistry(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('OCI registry client: challenges, outages and timeouts', () => {
  it('answers a Basic challenge with the secret credentials and follows a blob redirect', async () => {
    const basic = `Basic ${b64('u:p')}`;
    const config = JSON.stringify({ config: { Labels: { a: 'b' } } });
    const reg = await fakeRegistry((req, res) => {
      if (req.headers.authorization !== basic) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="reg"' }).end();
      } else if (req.url?.startsWith('/v2/team/app/manifests/')) {
        res.writeHead(200, { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' });
        res.end(JSON.stringify({ schemaVersion: 2, config: { digest: 'sha256:abc' }, layers: [] }));
      } else if (req.url === '/v2/team/app/blobs/sha256:abc') {
        res.writeHead(307, { location: '/storage/abc' }).end();
      } else if (req.url === '/storage/abc') res.writeHead(200).end(config);
      else res.writeHead(404).end();
    });
    try {
      const host = new URL(reg.url).host;
      const c = new OciRegistryClient({
        secrets: async () => dockerConfig({ [host]: { username: 'u', password: 'p' } }),
        mirrors: { [host]: reg.url },
      });
      assert.deepEqual(await c.imageLabels(`${host}/team/app:1.0`, pull('creds')), { a: 'b' });
    } finally {
      await reg.close();
    }
  });

  it('5xx is Unavailable, a silent registry times out, a closed port is unreachable', async () => {
    const reg = await fakeRegistry((req, res) => {
      if (req.url?.includes('silent')) return; // never answers
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAVAILABLE', message: 'maintenance' }] }));
    });
    try {
      const c = new OciRegistryClient({ mirrors: { 'reg.example': reg.url }, timeoutMs: 300 });
      await rejects(c.listTags('reg.example', 'a/b'), 'Unavailable', /503 UNAVAILABLE: maintenance/);
      await rejects(c.listTags('reg.example', 'silent/b'), 'Unavailable', /no answer within 0\.3s/);
    } finally {
      await reg.close();
    }
    const nobody = await fakeRegistry(() => {});
    await nobody.close(); // a port nothing listens on any more
    const closed = new OciRegistryClient({ mirrors: { 'reg.example': nobody.url }, timeoutMs: 2000 });
    await rejects(closed.listTags('reg.example', 'a/b'), 'Unavailable', /registry unreachable: ECONNREFUSED/);
  });
});

describe('registry credentials and headers (pure)', () => {
  it('hosts compare without scheme and path; Docker Hub has one name', () => {
    for (const [key, want] of [
      ['https://index.docker.io/v1/', 'docker.io'],
      ['registry-1.docker.io', 'docker.io'],
      ['GHCR.io/', 'ghcr.io'],
      ['http://localhost:5000/v2', 'localhost:5000'],
    ] as const)
      assert.equal(credentialHost(key), want, key);
  });

  it('docker config and the older dockercfg; a bad secret is named', () => {
    const cfg = dockerConfig({ 'ghcr.io': { auth: b64('me:s:ecret') } });
    assert.deepEqual(credentialsFor(cfg, 'ns/s', 'ghcr.io'), { username: 'me', password: 's:ecret', from: 'ns/s' });
    assert.equal(credentialsFor(cfg, 'ns/s', 'quay.io'), undefined);
    const old = {
      type: 'kubernetes.io/dockercfg',
      data: { '.dockercfg': b64(JSON.stringify({ 'quay.io': { auth: b64('a:b') } })) },
    };
    assert.equal((credentialsFor(old, 'ns/o', 'quay.io') as { username: string }).username, 'a');
    assert.match(
      String(credentialsFor({ data: { '.dockerconfigjson': b64('{') } }, 'ns/x', 'a')),
      /Secret ns\/x: the docker config is not valid JSON/,
    );
    assert.match(
      String(credentialsFor(dockerConfig({ 'a.io': { auth: b64('nocolon') } }), 'ns/y', 'a.io')),
      /not base64 of "username:password"/,
    );
  });

  it('WWW-Authenticate challenges and Link headers', () => {
    assert.deepEqual(
      parseChallenge(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull"',
      ),
      {
        scheme: 'bearer',
        params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:a/b:pull' },
      },
    );
    assert.deepEqual(parseChallenge('Basic realm=reg'), { scheme: 'basic', params: { realm: 'reg' } });
    assert.equal(parseChallenge(null), undefined);
    assert.equal(
      nextPageUrl('</v2/_catalog?last=b&n=2>; rel="next"', 'http://r:5000/v2/_catalog?n=2'),
      'http://r:5000/v2/_catalog?last=b&n=2',
    );
    assert.equal(
      nextPageUrl('<https://x/v2/a/tags/list?last=1>; rel=next', 'http://r/'),
      'https://x/v2/a/tags/list?last=1',
    );
    assert.equal(nextPageUrl('<https://x/p>; rel="prev"', 'http://r/'), undefined);
  });
});

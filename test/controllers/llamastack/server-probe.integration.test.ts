// Reading the running server (docs/llamastack.md, "Ready means chat works"): /v1/health, /v1/providers and
// /v1/version from a server that is healthy, has a failing provider, answers garbage or is not there; and
// the per-rollout memory that reads a server once per rollout, again while it is unhealthy.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  probeServer,
  ReportMemory,
  type ServerReport,
  ServerReports,
} from '../../../src/controllers/llamastack/server-health.ts';

type Json = Record<string, any>;
let answers: Record<string, { code: number; body: string }> = {};
let server: Server;
let base: string;

const providers = (health: Json[]) =>
  JSON.stringify({
    data: health.map((h, i) => ({
      api: 'inference',
      provider_id: `p${i}`,
      provider_type: 'remote::vllm',
      config: {},
      health: h,
    })),
  });

describe('reading the running Llama Stack server', () => {
  before(async () => {
    server = createServer((req, res) => {
      const a = answers[req.url ?? ''] ?? { code: 404, body: '{"detail":"Not Found"}' };
      res.writeHead(a.code, { 'content-type': 'application/json' }).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('healthy: version, every provider with its health ("Not Implemented" is no failure)', async () => {
    answers = {
      '/v1/health': { code: 200, body: '{"status":"OK"}' },
      '/v1/version': { code: 200, body: '{"version":"0.7.3"}' },
      '/v1/providers': {
        code: 200,
        body: providers([{ status: 'OK' }, { status: 'Not Implemented', message: 'no check' }]),
      },
    };
    const r = await probeServer(base);
    assert.ok(r.reachable);
    assert.equal(r.healthy, true);
    assert.equal(r.version, '0.7.3');
    assert.deepEqual(
      r.providers.map((p) => [p.provider_id, p.health?.status]),
      [
        ['p0', 'OK'],
        ['p1', 'Not Implemented'],
      ],
    );
    assert.ok(!('config' in r.providers[0]!), 'provider configs are not copied into status');
  });

  it('a provider reporting Error makes the server unhealthy, with its message', async () => {
    answers['/v1/providers'] = {
      code: 200,
      body: providers([{ status: 'OK' }, { status: 'Error', message: 'connection refused' }]),
    };
    const r = await probeServer(base);
    assert.ok(r.reachable && !r.healthy);
    assert.deepEqual(r.providers[1]!.health, { status: 'Error', message: 'connection refused' });
  });

  it('a /v1/health that is not OK makes it unhealthy; a missing /v1/version does not', async () => {
    answers = {
      '/v1/health': { code: 200, body: '{"status":"Error"}' },
      '/v1/providers': { code: 200, body: providers([]) },
    };
    const r = await probeServer(base);
    assert.ok(r.reachable && !r.healthy && r.status === 'Error' && r.version === undefined);
  });

  for (const [what, setup] of [
    ['an HTTP error', () => (answers['/v1/health'] = { code: 503, body: '{}' })],
    ['a body that is not JSON', () => (answers['/v1/health'] = { code: 200, body: '<html>' })],
    ['a body over 1 MiB', () => (answers['/v1/providers'] = { code: 200, body: `"${'x'.repeat(1 << 21)}"` })],
  ] as const)
    it(`${what} is reported as unreachable, naming the URL, never thrown`, async () => {
      answers = {
        '/v1/health': { code: 200, body: '{"status":"OK"}' },
        '/v1/providers': { code: 200, body: providers([]) },
      };
      setup();
      const r = await probeServer(base);
      assert.equal(r.reachable, false);
      assert.match((r as { message: string }).message, new RegExp(base.replace(/[.]/g, '\\.')));
    });

  it('nothing behind the Service, and a closed port, are unreachable', async () => {
    assert.deepEqual(await probeServer(undefined), {
      reachable: false,
      message: 'no ready endpoint behind the Service',
    });
    const r = await probeServer('http://127.0.0.1:1');
    assert.equal(r.reachable, false);
  });

  it('reads a server once per rollout while healthy, again after the recheck time while not', async () => {
    const reports = new ServerReports(1_000);
    let reads = 0;
    const healthy: ServerReport = { reachable: true, healthy: true, status: 'OK', providers: [], checkedAt: 't' };
    const sick: ServerReport = { reachable: false, message: 'down' };
    const read = (r: ServerReport) => async () => {
      reads++;
      return r;
    };
    await reports.get('u', 'gen1', 0, read(healthy));
    await reports.get('u', 'gen1', 60_000, read(healthy));
    assert.equal(reads, 1, 'a resync of the same rollout does not read again');
    await reports.get('u', 'gen2', 60_000, read(sick));
    assert.equal(reads, 2, 'a new rollout is read');
    await reports.get('u', 'gen2', 60_500, read(sick));
    assert.equal(reads, 2, 'an unhealthy one is not read on every reconcile');
    await reports.get('u', 'gen2', 61_500, read(healthy));
    assert.equal(reads, 3, 'but again after the recheck time');
  });
});

describe('ReportMemory', () => {
  it('is bounded: past maxEntries the id read longest ago is dropped, and read again when asked', async () => {
    const memory = new ReportMemory<number>(1_000, () => true, 2);
    let reads = 0;
    const read = async () => ++reads;
    await memory.get('a', 'k', 0, read);
    await memory.get('b', 'k', 0, read);
    await memory.get('c', 'k', 0, read);
    assert.equal(memory.size, 2);
    assert.equal(await memory.get('c', 'k', 0, read), 3, 'c is kept');
    assert.equal(await memory.get('a', 'k', 0, read), 4, 'a was dropped and is read again');
    assert.equal(reads, 4);
  });
});

// Fuzz test of the embedded API server: a seeded stream of random and mutated requests against every
// endpoint family (discovery, OpenAPI, every built-in collection/item, status/scale/log subresources, a
// CRD with a CEL-validated schema, watch), every method, content type and Accept header, hostile bodies
// (random bytes, invalid UTF-8, truncated and 10k-deep JSON, > 3 MiB, YAML bombs, `__proto__` fields) and
// broken patches/selectors/names/paths, plus probes whose exact answer is known (fuzz/probes.ts: query
// parameters, empty and encoded path segments, 406s, slow-loris bodies against a deadline). Every response
// must arrive in time with a real HTTP status, every error must be a well-formed Status (JSON, YAML or
// protobuf, as negotiated), no request may produce a 5xx it was not built to get, and the server must keep
// serving afterwards.
//
// The server runs in a child process: a request that blocks its event loop is then reported as a hung
// request instead of freezing this test. Reproduce a run with FUZZ_SEED=<seed> (printed at the start);
// FUZZ_REQUESTS sets the number of requests (default 3000), FUZZ_BUDGET_MS the time allowed for them (75 s).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FUZZ_CRD_NAME, FUZZ_GROUP, FUZZ_NAMESPACE, gadgetSpec } from './fuzz/corpus.ts';
import { RawClient } from './fuzz/http.ts';
import { Prng, seedFromEnv } from './fuzz/prng.ts';
import { RequestGenerator } from './fuzz/requests.ts';
import { confirmAndShrink, describeFinding, type Finding, runFuzz } from './fuzz/runner.ts';
import { type ServerProcess, startServerProcess } from './fuzz/server-process.ts';
import { createFixtures, prepareTarget } from './fuzz/setup.ts';
import type { Resource } from './fuzz/types.ts';

const SEED = seedFromEnv();
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 8;
const TIMEOUT_MS = 15_000;
/** stop issuing requests after this long; raise it with FUZZ_REQUESTS for long local runs */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 75_000);
const log = (s: string) => process.stderr.write(`[fuzz] ${s}\n`);

describe(`API server fuzz (FUZZ_SEED=${SEED})`, { timeout: Math.max(300_000, BUDGET_MS * 2) }, () => {
  let server: ServerProcess;
  let client: RawClient;
  let resources: Resource[];
  let refusedFixtures: string[];

  before(async () => {
    log(`seed ${SEED} (rerun with FUZZ_SEED=${SEED}), ${REQUESTS} requests`);
    server = await startServerProcess();
    client = new RawClient(server.target, CONCURRENCY);
    resources = await prepareTarget(client);
    refusedFixtures = await createFixtures(client, resources);
  });

  after(async () => {
    client?.close();
    await server?.close();
  });

  it('serves the fuzz CRD and accepts a valid fixture of every kind', () => {
    assert.ok(
      resources.some(
        (r) =>
          r.group === FUZZ_GROUP &&
          r.plural === 'gadgets' &&
          r.subresources.includes('status') &&
          r.subresources.includes('scale'),
      ),
    );
    assert.ok(resources.length >= 28, `discovery lists only ${resources.length} resources`);
    assert.deepEqual(refusedFixtures, [], `valid fixtures were refused:\n${refusedFixtures.join('\n')}`);
  });

  it('answers every random or mutated request in time with a valid status, Status errors and no 5xx', async (t) => {
    t.diagnostic(`FUZZ_SEED=${SEED}`);
    await server.auditClear();
    const gen = new RequestGenerator(new Prng(SEED), resources);
    const { findings, stats, hung } = await runFuzz(client, gen, {
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      timeoutMs: TIMEOUT_MS,
      budgetMs: BUDGET_MS,
      onProgress: (n) => log(`${n} requests sent`),
      // fixtures the fuzzer deleted come back, so item, status and scale paths keep reaching real objects
      refresh: async () => void (await createFixtures(client, resources, true)),
    });
    const codes = [...stats.byCode]
      .sort()
      .map(([c, n]) => `${c}×${n}`)
      .join(' ');
    log(`${stats.sent} requests in ${stats.elapsedMs} ms; codes: ${codes}`);
    log(`families: ${[...stats.byFamily].map(([f, n]) => `${f}×${n}`).join(' ')}`);
    for (const s of stats.slowest) log(`slow: ${s.ms} ms ${s.what}`);

    // The server's own record: a 5xx it logged but the client never saw (e.g. failing after the headers went out).
    const hidden: Finding[] = [];
    const audit = hung ? undefined : await server.audit();
    const seen5xx = [...stats.byCode].filter(([c]) => /^5\d\d$/.test(c)).reduce((s, [, n]) => s + n, 0);
    const audit5xx = (audit ?? []).filter((e) => e.code >= 500);
    if (audit5xx.length > seen5xx) {
      const sample = audit5xx
        .slice(0, 5)
        .map((e) => `${e.verb} ${e.resource} ${e.namespace}/${e.name} → ${e.code}`)
        .join('; ');
      hidden.push({
        signature: 'audit',
        count: audit5xx.length - seen5xx,
        verdict: {
          problems: [`the audit log records ${audit5xx.length} 5xx responses, the client saw ${seen5xx}: ${sample}`],
          code: 500,
          message: '',
        },
        request: { family: 'audit', method: '-', path: '-', headers: {}, note: '' },
      });
    }
    if (!hung) for (const f of findings.slice(0, 12)) await confirmAndShrink(client, f, TIMEOUT_MS);
    const all = [...findings, ...hidden];
    if (all.length) log(`${all.length} distinct findings:\n${all.map(describeFinding).join('\n')}`);
    if (!hung)
      assert.ok(stats.sent >= Math.min(REQUESTS, 1000), `only ${stats.sent} requests were sent within the time budget`);
    assert.equal(
      all.length,
      0,
      `FUZZ_SEED=${SEED}: ${all.length} distinct findings:\n${all.map(describeFinding).join('\n\n')}`,
    );
  });

  it('still answers /readyz and a normal create and get after the run', async () => {
    const ready = await client.send({ method: 'GET', path: '/readyz', headers: {} }, 5_000);
    assert.equal(ready.kind === 'response' ? ready.status : ready.kind, 200);
    const crd = await client.send(
      { method: 'GET', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${FUZZ_CRD_NAME}`, headers: {} },
      TIMEOUT_MS,
    );
    if (crd.kind !== 'response' || crd.status !== 200) {
      const writes = ((await server.audit()) ?? []).filter(
        (e) =>
          e.resource === 'customresourcedefinitions' &&
          (e.name === FUZZ_CRD_NAME || !e.name) &&
          !['get', 'list', 'watch'].includes(e.verb) &&
          e.code < 300,
      );
      assert.fail(`the fuzz CRD is gone; writes that may have removed it: ${JSON.stringify(writes)}`);
    }
    const path = `/apis/${FUZZ_GROUP}/v1/namespaces/${FUZZ_NAMESPACE}/gadgets`;
    // the namespace may have been deleted and re-created during the run; make sure it is there
    await client.send(
      {
        method: 'POST',
        path: '/api/v1/namespaces',
        headers: { 'Content-Type': 'application/json' },
        body: Buffer.from(JSON.stringify({ metadata: { name: FUZZ_NAMESPACE } })),
      },
      TIMEOUT_MS,
    );
    const body = {
      apiVersion: `${FUZZ_GROUP}/v1`,
      kind: 'Gadget',
      metadata: { name: 'after-the-storm' },
      spec: gadgetSpec(),
    };
    const created = await client.send(
      {
        method: 'POST',
        path,
        headers: { 'Content-Type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
      },
      TIMEOUT_MS,
    );
    assert.equal(
      created.kind === 'response' ? created.status : created.kind,
      201,
      created.kind === 'response' ? created.body.toString() : '',
    );
    const got = await client.send({ method: 'GET', path: `${path}/after-the-storm`, headers: {} }, TIMEOUT_MS);
    assert.equal(got.kind === 'response' ? got.status : got.kind, 200);
    const obj = JSON.parse(got.kind === 'response' ? got.body.toString() : '{}');
    assert.equal(obj.spec.size, 'medium');
    assert.equal(obj.spec.image.tag, 'v1.2.3');
  });
});

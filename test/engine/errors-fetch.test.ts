import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ConfigMaps, NoKindMatchError } from '@modelplane/runtime/client';
import {
  CATEGORY_BEHAVIOUR,
  categorize,
  clientReader,
  FetchResult,
  fetch,
  fetchList,
  invalidSpecError,
  type ObjectReader,
} from '../../src/engine/index.ts';
import { apiError } from './helpers/fake-cluster.ts';

describe('categorize: the one place errors get their category', () => {
  const TABLE: Array<[string, unknown, string, string]> = [
    ['401', apiError(401), 'Auth', 'AuthError'],
    ['403', apiError(403), 'Auth', 'AuthError'],
    [
      '403 from a namespace being deleted',
      new ApiError({
        code: 403,
        reason: 'Forbidden',
        message: 'jobs "x" is forbidden: unable to create new content in namespace ns because it is being terminated',
        details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns is being terminated' }] },
      }),
      'MissingUpstreamDependency',
      'NamespaceTerminating',
    ],
    ['404', apiError(404), 'MissingDownstreamDependency', 'NotFound'],
    ['409 conflict', new ApiError({ code: 409, reason: 'Conflict', message: 'stale' }), 'Infrastructure', 'Conflict'],
    [
      '409 AlreadyExists',
      new ApiError({ code: 409, reason: 'AlreadyExists', message: 'exists' }),
      'InvalidSpec',
      'AlreadyExists',
    ],
    ['400', apiError(400), 'InvalidSpec', 'InvalidSpec'],
    ['422', apiError(422), 'InvalidSpec', 'InvalidSpec'],
    ['410', apiError(410), 'Infrastructure', 'InfrastructureError'],
    ['429', apiError(429), 'Infrastructure', 'InfrastructureError'],
    ['500', apiError(500), 'Infrastructure', 'InfrastructureError'],
    ['503', apiError(503), 'Infrastructure', 'InfrastructureError'],
    ['504', apiError(504), 'Infrastructure', 'InfrastructureError'],
    [
      'connection refused',
      ApiError.fromNetwork('GET', '/x', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      'Infrastructure',
      'InfrastructureError',
    ],
    [
      'DNS',
      ApiError.fromNetwork('GET', '/x', Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
      'Infrastructure',
      'InfrastructureError',
    ],
    [
      'raw socket error',
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      'Infrastructure',
      'InfrastructureError',
    ],
    [
      'kind not served',
      new NoKindMatchError('gateway.networking.k8s.io/v1', 'HTTPRoute'),
      'Infrastructure',
      'KindNotServed',
    ],
    ['unknown error', new Error('boom'), 'Infrastructure', 'InfrastructureError'],
    ['a string', 'boom', 'Infrastructure', 'InfrastructureError'],
    ['already categorised', invalidSpecError('BadTemplate', 'x'), 'InvalidSpec', 'BadTemplate'],
  ];
  for (const [name, err, category, reason] of TABLE) {
    it(`${name} ⇒ ${category}/${reason}`, () => {
      const c = categorize(err);
      assert.equal(c.category, category);
      assert.equal(c.reason, reason);
    });
  }

  it('the categories behave as docs/controllers.md table says', () => {
    const summary = Object.fromEntries(
      Object.entries(CATEGORY_BEHAVIOUR).map(([k, b]) => [
        k,
        [b.blocksApply, b.requeueWithBackoff, b.parent?.type ?? '-', b.parent?.reason ?? '-'],
      ]),
    );
    assert.deepEqual(summary, {
      Infrastructure: [true, true, 'DependenciesReachable', 'InfrastructureError'],
      Auth: [true, false, 'AuthValid', 'AuthError'],
      InvalidSpec: [true, false, 'ConfigValid', 'InvalidSpec'],
      MissingUpstreamDependency: [true, false, 'ConfigValid', 'ReferenceNotFound'],
      MissingDownstreamDependency: [false, false, '-', '-'],
      ResourceExhaustion: [true, false, '-', '-'],
    });
  });
});

describe('FetchResult', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' } };
  const reader = (over: Partial<ObjectReader>): ObjectReader => ({
    get: async () => undefined,
    list: async () => [],
    ...over,
  });

  it('fetch: a value, a NotFound naming the object, or the error', async () => {
    const ok = await fetch(reader({ get: async () => cm as never }), ConfigMaps, 'c', 'ns');
    assert.ok(ok.ok());
    assert.equal(ok.value.data?.a, '1');
    const missing = await fetch(reader({}), ConfigMaps, 'c', 'ns');
    assert.equal(missing.ok(), false);
    assert.equal(missing.isNotFound(), true);
    assert.match(String((missing.error as Error).message), /ConfigMap ns\/c not found/);
    const failed = await fetch(reader({ get: async () => Promise.reject(apiError(503)) }), ConfigMaps, 'c', 'ns');
    assert.equal(failed.isNotFound(), false);
    assert.equal(failed.categorized()?.category, 'Infrastructure');
  });

  it('fetchList: an empty list is a value, a failure is an error', async () => {
    const empty = await fetchList(reader({}), ConfigMaps, { namespace: 'ns' });
    assert.ok(empty.ok());
    assert.deepEqual(empty.value, []);
    const failed = await fetchList(reader({ list: async () => Promise.reject(apiError(403)) }), ConfigMaps);
    assert.equal(failed.categorized()?.category, 'Auth');
  });

  it('toComponentHealth / toUpstream / toDownstream', () => {
    const inspect = () => ({ state: 'Ready' as const, reason: 'Found' });
    const ok = FetchResult.of(cm);
    assert.deepEqual(ok.toComponentHealth('Config', inspect), { component: 'Config', state: 'Ready', reason: 'Found' });
    assert.equal(ok.toUpstreamComponentHealth('Config', inspect).dependencyType, 'Upstream');
    assert.equal(ok.toDownstreamComponentHealth('Config', inspect).dependencyType, 'Downstream');

    const missing = FetchResult.notFound({ kind: 'ConfigMap', name: 'c', namespace: 'ns' });
    const raw = categorize(missing.toComponentHealth('Config', inspect).errors![0]);
    assert.equal(raw.category, 'MissingDownstreamDependency', 'a raw NotFound defaults to downstream');
    const up = categorize(missing.toUpstreamComponentHealth('Config', inspect).errors![0]);
    assert.deepEqual(
      [up.category, up.reason, up.message],
      ['MissingUpstreamDependency', 'ReferenceNotFound', 'ConfigMap ns/c not found'],
    );
    const down = categorize(missing.toDownstreamComponentHealth('Config', inspect).errors![0]);
    assert.deepEqual([down.category, down.reason], ['MissingDownstreamDependency', 'ResourceNotReady']);

    const outage = FetchResult.failure(apiError(503), { kind: 'ConfigMap', name: 'c' });
    assert.equal(
      categorize(outage.toUpstreamComponentHealth('Config', inspect).errors![0]).category,
      'Infrastructure',
      'only NotFound is re-categorised',
    );
  });

  it('map keeps errors and transforms values', () => {
    assert.equal(FetchResult.of(2).map((n) => n * 2).value, 4);
    const f = FetchResult.failure<number>(apiError(500)).map((n) => n * 2);
    assert.equal(f.ok(), false);
  });

  it('clientReader turns a client into a reader', async () => {
    const r = clientReader({
      getOrUndefined: async () => undefined,
      list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [cm] }),
    } as never);
    assert.equal(await r.get(ConfigMaps, 'x', 'ns'), undefined);
    assert.equal((await r.list(ConfigMaps)).length, 1);
  });
});

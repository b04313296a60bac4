import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReconcileContext } from '@modelplane/runtime/controller';
import {
  type DomainReconciler,
  FetchResult,
  ManualClock,
  missingUpstreamError,
  Pipeline,
  PlanResult,
  pipelineReconciler,
  type RuntimeConfigSource,
  runtimeConfigValue,
} from '../../src/engine/index.ts';
import { FakeCluster } from './helpers/fake-cluster.ts';
import { type Widget, Widgets, widget } from './helpers/scenario.ts';

interface RuntimeConfig {
  labels: Record<string, string>;
  replicas: number;
}

/** reports the runtime config as a component, as docs/controllers.md's example does, and plans from it */
const reconciler: DomainReconciler<
  Widget,
  { seen: RuntimeConfig | undefined },
  { seen: RuntimeConfig | undefined },
  RuntimeConfig
> = {
  fetchRemoteState: async (ctx) => ({ seen: runtimeConfigValue(ctx) }),
  planResources: (ctx) =>
    new PlanResult().apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'child', namespace: 'ns' },
      data: { replicas: String(runtimeConfigValue(ctx)?.replicas ?? 1) },
    }),
  getComponentHealth: (_obs, ctx) => [
    ctx.runtimeConfig?.toComponentHealth('RuntimeConfig', () => ({ state: 'Ready', reason: 'ConfigFound' })),
  ],
};

function setup(config: FetchResult<RuntimeConfig>) {
  const cluster = new FakeCluster();
  const clock = new ManualClock();
  let fetches = 0;
  const source: RuntimeConfigSource<Widget, RuntimeConfig> = {
    fetch: async () => {
      fetches++;
      return config;
    },
  };
  const pipeline = new Pipeline({
    name: 'rc',
    reconciler,
    runtimeConfig: source,
    clock,
    labelPropagators: [(_child, ctx) => ctx.runtimeConfig?.labels],
  });
  const w = cluster.put(widget());
  return { cluster, pipeline, w, fetches: () => fetches };
}

describe('pipeline', () => {
  it('fetches the runtime config through the source and hands it to fetch, planner, health and label propagation', async () => {
    const { cluster, pipeline, w, fetches } = setup(FetchResult.of({ labels: { 'cost-center': 'ml' }, replicas: 3 }));
    const outcome = await pipeline.run(w, cluster.deps());
    assert.equal(fetches(), 1);
    assert.equal(outcome.state, 'Ready');
    const child = cluster.getObject('v1', 'ConfigMap', 'child', 'ns')!;
    assert.deepEqual(child.data, { replicas: '3' });
    assert.equal(child.metadata.labels?.['cost-center'], 'ml');
  });

  it('a missing explicit runtime config fails the object with ConfigValid=False and nothing applied', async () => {
    const { cluster, pipeline, w } = setup(
      FetchResult.failure(missingUpstreamError('ConfigNotFound', 'RuntimeConfig team-a not found')),
    );
    const outcome = await pipeline.run(w, cluster.deps());
    assert.equal(outcome.state, 'Failed');
    assert.equal(cluster.count('apply'), 0);
    const status = cluster.getObject<Widget>(Widgets.apiVersion, Widgets.kind, 'w1', 'ns')!.status!;
    assert.deepEqual(
      status
        .conditions!.filter((c) => c.type === 'ConfigValid' || c.type === 'RuntimeConfigReady')
        .map((c) => `${c.type}=${c.status}/${c.reason}`)
        .sort(),
      ['ConfigValid=False/ReferenceNotFound', 'RuntimeConfigReady=False/ConfigNotFound'],
    );
  });

  it('leaves deleting objects to the thin controller', async () => {
    const { cluster, pipeline, w } = setup(FetchResult.of({ labels: {}, replicas: 1 }));
    w.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
    const outcome = await pipeline.run(w, cluster.deps());
    assert.equal(outcome.phase, 'deleting');
    assert.equal(cluster.requests.length, 0);
  });

  it('records observedGeneration on conditions when asked to', async () => {
    const cluster = new FakeCluster();
    const pipeline = new Pipeline({ name: 'g', reconciler, observedGeneration: true });
    const w = cluster.put({ ...widget(), metadata: { name: 'w1', namespace: 'ns', generation: 4 } });
    await pipeline.run(w, cluster.deps());
    const status = cluster.getObject<Widget>(Widgets.apiVersion, Widgets.kind, 'w1', 'ns')!.status!;
    assert.ok(status.conditions!.every((c) => c.observedGeneration === 4));
  });

  it('pipelineReconciler reads the object from the cache and throws for a retry on infrastructure errors', async () => {
    const cluster = new FakeCluster();
    const pipeline = new Pipeline({
      name: 'x',
      reconciler: {
        fetchRemoteState: async () => ({}),
        planResources: () => new PlanResult().requeueAfter(30_000),
        getComponentHealth: () => [
          { component: 'Db', errors: [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })] },
        ],
      },
    });
    cluster.put(widget());
    const ctx = {
      client: cluster.client,
      cache: cluster.reader,
      recorder: { event() {} },
      log: cluster.log,
    } as unknown as ReconcileContext;
    const reconcile = pipelineReconciler(Widgets, pipeline);
    await assert.rejects(
      reconcile({ namespace: 'ns', name: 'w1' }, ctx),
      /retrying after infrastructure errors: connect ECONNREFUSED/,
    );
    assert.deepEqual(await reconcile({ namespace: 'ns', name: 'gone' }, ctx), {});

    const ok = new Pipeline({
      name: 'y',
      reconciler: { fetchRemoteState: async () => ({}), planResources: () => new PlanResult().requeueAfter(30_000) },
    });
    assert.deepEqual(await pipelineReconciler(Widgets, ok)({ namespace: 'ns', name: 'w1' }, ctx), {
      requeueAfter: 30_000,
    });
  });
});

describe('planning is pure by type', () => {
  it('a planner gets no client or reader and cannot be async (checked by the type checker)', () => {
    const impure: DomainReconciler<Widget, object> = {
      fetchRemoteState: async () => ({}),
      // @ts-expect-error a planner returns a PlanResult synchronously: it cannot await I/O
      planResources: async () => new PlanResult(),
    };
    const reaching: DomainReconciler<Widget, object> = {
      fetchRemoteState: async () => ({}),
      planResources: (ctx) => {
        // @ts-expect-error the plan context carries data only
        void ctx.client;
        // @ts-expect-error no reader either
        void ctx.reader;
        return new PlanResult();
      },
    };
    assert.equal(typeof impure.planResources, 'function');
    assert.equal(reaching.planResources({ object: widget(), runtimeConfig: undefined }, {}).isEmpty, true);
  });
});

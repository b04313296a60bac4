// A plan that stops at its first failed write, and an object read back from the API server before anything
// after it is written: what the one-write rule of docs/llamastack.md stands on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { CategorizedError, executePlan, type ObjectRef, PlanResult } from '../../src/engine/index.ts';
import { apiError, FakeCluster } from './helpers/fake-cluster.ts';

const owner: KubeObject = {
  apiVersion: 'test.modelplane.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'owner-uid' },
};
const obj = (apiVersion: string, kind: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'ns' },
  ...extra,
});
const configMap = obj('v1', 'ConfigMap', 'cfg-2', { data: { 'config.yaml': 'version: 2\n' }, immutable: true });
const deployment = obj('apps/v1', 'Deployment', 'app', { spec: { replicas: 1, volume: 'cfg-2' } });
const service = obj('v1', 'Service', 'svc', { spec: { ports: [{ port: 80 }] } });

function setup() {
  const cluster = new FakeCluster();
  const live = (ref: ObjectRef) =>
    cluster.reader.get({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.metadata.name!, ref.metadata.namespace);
  const deps = { client: cluster.client, fieldManager: cluster.fieldManager, live, readBack: live };
  const written = () => cluster.requests.map((r) => `${r.verb} ${r.kind}`);
  return { cluster, deps, written };
}

const plan = () =>
  new PlanResult().stopAtFirstFailure().apply(configMap, { readBack: true }).apply(service).apply(deployment);

describe('a plan that stops at its first failed write', () => {
  for (const [what, code] of [
    ['a 403 (quota, policy)', 403],
    ['a 422 (too large)', 422],
    ['a 409', 409],
    ['a 500', 500],
  ] as const) {
    it(`${what} on the ConfigMap: nothing after it is written, and the outcome names the write`, async () => {
      const { cluster, deps, written } = setup();
      cluster.faults = [(verb, o) => (verb === 'apply' && o.kind === 'ConfigMap' ? apiError(code) : undefined)];
      const out = await executePlan(plan(), owner, deps);
      assert.deepEqual(written(), ['apply ConfigMap'], 'the Deployment and Service are never written');
      assert.equal(cluster.getObject('apps/v1', 'Deployment', 'app', 'ns'), undefined);
      assert.equal(out.stoppedAt?.verb, 'apply');
      assert.equal(out.stoppedAt?.ref.kind, 'ConfigMap');
      assert.match(out.stoppedAt!.error.message, /^apply ConfigMap ns\/cfg-2: /);
      assert.equal(out.notAttempted, 2);
      assert.deepEqual([out.applied, out.errors.length], [0, 1]);
    });
  }

  it('a ConfigMap that is not there when read back stops the plan before the Deployment', async () => {
    const { deps, written } = setup();
    const out = await executePlan(plan(), owner, { ...deps, readBack: async () => undefined });
    assert.deepEqual(written(), ['apply ConfigMap']);
    assert.equal(out.stoppedAt?.verb, 'read back');
    assert.equal(out.stoppedAt?.error.reason, 'ReadBackMismatch');
    assert.match(out.stoppedAt!.error.message, /read back ConfigMap ns\/cfg-2: it is not there/);
  });

  it('a ConfigMap read back with other content (a partial or replaced config) stops the plan too', async () => {
    const { deps, written } = setup();
    const partial = { ...configMap, data: { 'config.yaml': 'version: ' } };
    const out = await executePlan(plan(), owner, { ...deps, readBack: async () => partial });
    assert.deepEqual(written(), ['apply ConfigMap']);
    assert.match(out.stoppedAt!.error.message, /its data differs from what was written/);
  });

  it('a read-back that itself fails stops the plan', async () => {
    const { deps, written } = setup();
    const out = await executePlan(plan(), owner, {
      ...deps,
      readBack: async () => {
        throw apiError(503);
      },
    });
    assert.deepEqual(written(), ['apply ConfigMap']);
    assert.equal(out.stoppedAt?.verb, 'read back');
  });

  it('a failed delete stops the applies that follow it', async () => {
    const { cluster, deps, written } = setup();
    cluster.put(obj('v1', 'ConfigMap', 'cfg-0'));
    cluster.faults = [(verb) => (verb === 'delete' ? apiError(403) : undefined)];
    const out = await executePlan(plan().delete(obj('v1', 'ConfigMap', 'cfg-0')), owner, deps);
    assert.deepEqual(written(), ['delete ConfigMap']);
    assert.equal(out.notAttempted, 3);
  });

  it('all goes through when nothing fails: the ConfigMap is written and read back before the Deployment', async () => {
    const { cluster, deps, written } = setup();
    const reads: string[] = [];
    const out = await executePlan(plan(), owner, {
      ...deps,
      readBack: async (ref) => {
        reads.push(`${ref.kind} after ${written().length} writes`);
        return deps.live(ref);
      },
    });
    assert.deepEqual(written(), ['apply ConfigMap', 'apply Service', 'apply Deployment']);
    assert.deepEqual(reads, ['ConfigMap after 1 writes']);
    assert.equal(out.stoppedAt, undefined);
    assert.equal(
      cluster.getObject<KubeObject & { spec: { volume: string } }>('apps/v1', 'Deployment', 'app', 'ns')!.spec.volume,
      'cfg-2',
    );
  });

  it('without stopAtFirstFailure a failure does not stop the others; classifyWriteError renames it', async () => {
    const { cluster, deps, written } = setup();
    cluster.faults = [(verb, o) => (verb === 'apply' && o.kind === 'ConfigMap' ? apiError(403) : undefined)];
    const out = await executePlan(new PlanResult().apply(configMap).apply(deployment), owner, {
      ...deps,
      classifyWriteError: (e) => new CategorizedError('Infrastructure', 'QuotaExceeded', e.message, { cause: e.cause }),
    });
    assert.deepEqual(written(), ['apply ConfigMap', 'apply Deployment']);
    assert.equal(out.errors[0]!.reason, 'QuotaExceeded');
    assert.equal(out.stoppedAt, undefined);
  });
});

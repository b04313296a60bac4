// A failed artifact download and its retry on the engine's in-memory fake cluster (docs/aim.md, "Caches and
// artifacts"): Failed until the retry time, then one new download Job (the next attempt), and never back to
// the attempt it replaced, even when the status write that moved to the retry did not land.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { downloadBaseEnv, downloadEnv, quantityBytes } from '../../../src/common/model-storage/index.ts';
import { artifactPipeline } from '../../../src/controllers/aim/artifact/controller.ts';
import { downloadJobName } from '../../../src/controllers/aim/artifact/names.ts';
import type { AIMArtifact } from '../../../src/controllers/aim/shared/kinds.ts';
import { SECRET_VERSIONS_ANNOTATION } from '../../../src/controllers/aim/shared/secret-names.ts';
import { ManualClock } from '../../../src/engine/index.ts';
import { FakeCluster } from '../../engine/helpers/fake-cluster.ts';

const API = 'aim.eai.amd.com/v1alpha1';
const NS = 'team';
const RETRY_MS = 60_000;
/** what the Secret watch knows: `namespace/name` → resourceVersion */
const secretVersions = new Map<string, string>();

const job = (attempt: number, condition?: 'Complete' | 'Failed'): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: downloadJobName('weights', attempt), namespace: NS },
  spec: {},
  ...(condition ? { status: { conditions: [{ type: condition, status: 'True' }] } } : { status: {} }),
});

function setup(status: Record<string, unknown>, ...objects: KubeObject[]) {
  const fake = new FakeCluster('aim-artifact');
  const clock = new ManualClock(Date.parse('2026-01-01T00:10:00Z'));
  fake.put({
    apiVersion: API,
    kind: 'AIMArtifact',
    metadata: { name: 'weights', namespace: NS },
    spec: { sourceUri: 'hf://org/model', size: '1Gi' },
    status,
  } as KubeObject);
  fake.put({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'weights', namespace: NS },
    spec: {},
    status: { phase: 'Bound' },
  } as KubeObject);
  for (const o of objects) fake.put(o);
  const pipeline = artifactPipeline({
    operatorNamespace: 'aim-system',
    clock,
    retryMs: RETRY_MS,
    secretVersions: { resourceVersion: (ns, name) => secretVersions.get(`${ns}/${name}`) },
  });
  const current = () => fake.getObject<AIMArtifact>(API, 'AIMArtifact', 'weights', NS)!;
  const run = () => pipeline.run(current(), fake.deps());
  const appliedJobs = () => fake.requests.filter((r) => r.verb === 'apply' && r.kind === 'Job').map((r) => r.name);
  const deletedJobs = () => fake.requests.filter((r) => r.verb === 'delete' && r.kind === 'Job').map((r) => r.name);
  return { fake, clock, current, run, appliedJobs, deletedJobs };
}

describe('AIMArtifact download retry', () => {
  const failedStatus = {
    status: 'Failed',
    downloadAttempt: 1,
    lastFailureTime: '2026-01-01T00:09:30Z',
    download: { message: 'ERROR 401 Client Error: Unauthorized' },
  };

  it('before the retry time: Failed stays, nothing is applied, the reconcile comes back when the retry is due', async () => {
    const t = setup(failedStatus, job(1, 'Failed'));
    const out = await t.run();
    assert.deepEqual(t.appliedJobs(), []);
    assert.equal(t.current().status?.status, 'Failed');
    assert.equal(out.requeueAfterMs, 30_000, 'due 60 s after the failure, 30 s from now');
  });

  it('a failure whose log could not be read yet: looked at again in a moment, not only at the retry time', async () => {
    const { download: _known, ...unread } = failedStatus;
    const t = setup(unread, job(1, 'Failed'));
    const out = await t.run();
    assert.deepEqual(t.appliedJobs(), []);
    assert.equal(out.requeueAfterMs, 2_000);
  });

  it('the retry time has come: the failed Job goes, the next attempt starts, the failure is cleared', async () => {
    const t = setup(failedStatus, job(1, 'Failed'));
    t.clock.advance(30_000);
    await t.run();
    assert.deepEqual(t.deletedJobs(), [downloadJobName('weights', 1)]);
    assert.deepEqual(t.appliedJobs(), [downloadJobName('weights', 2)]);
    assert.equal(t.current().status?.downloadAttempt, 2);
    assert.equal(t.current().status?.lastFailureTime, undefined);
  });

  describe('an auth failure whose env has changed since (a token added): retried at once, not after the wait', () => {
    const env = (extra: Array<{ name: string; value: string }>) =>
      downloadEnv(
        downloadBaseEnv({ artifactName: 'weights', namespace: NS, expectedSizeBytes: quantityBytes('1Gi') }),
        undefined,
        extra,
      );
    const failedWith = (containerEnv: unknown[]): KubeObject => ({
      ...job(1, 'Failed'),
      spec: { template: { spec: { containers: [{ name: 'download', env: containerEnv }] } } },
    });
    const withToken = (t: ReturnType<typeof setup>) =>
      t.fake.put({
        ...t.current(),
        spec: { ...t.current().spec, env: [{ name: 'HF_TOKEN', value: 'hf_x' }] },
      } as KubeObject);

    it('the token is new: the failed Job goes and attempt 2 starts now', async () => {
      const t = setup(failedStatus, failedWith(env([])));
      withToken(t);
      await t.run();
      assert.deepEqual(t.deletedJobs(), [downloadJobName('weights', 1)]);
      assert.deepEqual(t.appliedJobs(), [downloadJobName('weights', 2)]);
    });

    it('the env is what the failed Job had: it waits for the retry time (no retry loop)', async () => {
      const t = setup(failedStatus, failedWith(env([{ name: 'HF_TOKEN', value: 'hf_x' }])));
      withToken(t);
      const out = await t.run();
      assert.deepEqual(t.appliedJobs(), []);
      assert.equal(out.requeueAfterMs, 30_000);
    });
  });

  describe('an auth failure and the Secret its token comes from: retried at once once the Secret changes', () => {
    const fromSecret = [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } }];
    const failedRecording = (recorded: Record<string, string>): KubeObject => ({
      ...job(1, 'Failed'),
      metadata: {
        ...job(1, 'Failed').metadata,
        annotations: { [SECRET_VERSIONS_ANNOTATION]: JSON.stringify(recorded) },
      },
    });
    const namingSecret = (t: ReturnType<typeof setup>) =>
      t.fake.put({ ...t.current(), spec: { ...t.current().spec, env: fromSecret } } as KubeObject);
    const cases: Array<[string, Record<string, string>, string | undefined, boolean]> = [
      ['unchanged: waits for the retry time', { hf: '10' }, '10', false],
      ['changed since the Job was created: retried now', { hf: '10' }, '11', true],
      ['absent when the Job was created, created since: retried now', { hf: '' }, '12', true],
      ['not known to the watch (yet): waits', { hf: '10' }, undefined, false],
    ];
    for (const [name, recorded, now, retried] of cases)
      it(name, async () => {
        secretVersions.clear();
        if (now !== undefined) secretVersions.set(`${NS}/hf`, now);
        const t = setup(failedStatus, failedRecording(recorded));
        namingSecret(t);
        const out = await t.run();
        if (!retried) {
          assert.deepEqual(t.appliedJobs(), []);
          assert.equal(out.requeueAfterMs, 30_000);
          return;
        }
        assert.deepEqual(t.deletedJobs(), [downloadJobName('weights', 1)]);
        assert.deepEqual(t.appliedJobs(), [downloadJobName('weights', 2)]);
        // the new Job records what it was created with: the next failure waits unless the Secret changes again
        const next = t.fake.getObject<KubeObject>('batch/v1', 'Job', downloadJobName('weights', 2), NS);
        assert.equal(next?.metadata.annotations?.[SECRET_VERSIONS_ANNOTATION], JSON.stringify({ hf: now }));
      });
    it('a Job without the record (an older one) never counts as changed', async () => {
      secretVersions.set(`${NS}/hf`, '11');
      const t = setup(failedStatus, job(1, 'Failed'));
      namingSecret(t);
      await t.run();
      assert.deepEqual(t.appliedJobs(), []);
    });
  });

  it('the status still says attempt 1 but the retry Job exists: it goes on from attempt 2 and does not recreate attempt 1', async () => {
    const t = setup(failedStatus, job(2));
    await t.run();
    assert.deepEqual(t.appliedJobs(), [], 'attempt 1 is not started again');
    assert.equal(t.current().status?.downloadAttempt, 2);
    assert.equal(t.current().status?.lastFailureTime, undefined, 'a retry under way is no failure');
    t.fake.put(job(2, 'Complete'));
    await t.run();
    assert.equal(t.current().status?.status, 'Ready');
    assert.equal(t.current().status?.downloadAttempt, 2);
  });
});

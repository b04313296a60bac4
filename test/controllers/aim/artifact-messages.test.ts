// What an AIMArtifact's conditions say while its download cannot run and after it failed without a cause in
// its log (docs/aim.md, "Every wait names its cause"): a Job whose pod cannot start is not "downloading", and
// a failure is never explained by a line that reports success.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { artifactHealth, composeArtifact } from '../../../src/controllers/aim/artifact/plan.ts';
import { waitingForPod } from '../../../src/controllers/aim/artifact/verify.ts';
import type { AIMArtifact } from '../../../src/controllers/aim/shared/kinds.ts';
import { categorize, type ComponentHealth, FetchResult, infrastructureError } from '../../../src/engine/index.ts';

const NS = 'team';
const artifact: AIMArtifact = {
  apiVersion: 'aim.eai.amd.com/v1alpha1',
  kind: 'AIMArtifact',
  metadata: { name: 'weights', namespace: NS },
  spec: { sourceUri: 'hf://org/model', size: '1Gi' },
} as AIMArtifact;

const job = (name: string, condition?: 'Failed'): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {},
    status: condition ? { conditions: [{ type: condition, status: 'True' }] } : { active: 1 },
  }) as KubeObject;

const pvc = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'weights', namespace: NS },
  status: { phase: 'Bound' },
};

function observe(download: KubeObject, extra: { downloadLog?: string; downloadPods?: object } = {}) {
  return composeArtifact(
    artifact,
    {
      pvc: FetchResult.of(pvc as never),
      checkSizeJob: FetchResult.notFound({ kind: 'Job', name: 'weights-check-size', namespace: NS }),
      downloadJob: FetchResult.of(download as never),
      attempt: 1,
      secretVersions: {},
      now: Date.parse('2026-01-01T00:00:00Z'),
      ...(extra as object),
    },
    undefined,
    300_000,
  );
}

const component = (hs: ReturnType<typeof artifactHealth>, name: string) =>
  hs.find((h): h is ComponentHealth => Boolean(h) && (h as ComponentHealth).component === name);

const unschedulable = {
  state: 'Progressing',
  reason: 'FailedScheduling',
  message: 'pod weights-dl-1-x: 0/6 nodes are available: 6 Insufficient cpu.',
};

describe('AIMArtifact messages', () => {
  it('a running Job whose pod cannot be scheduled is waiting for its pod, not downloading', () => {
    const obs = observe(job('weights-dl-1'), { downloadLog: '', downloadPods: unschedulable });
    assert.equal(waitingForPod(obs), true);
    const dl = component(artifactHealth(artifact, obs, undefined), 'DownloadJob');
    assert.equal(dl?.reason, 'WaitingForPod');
    assert.match(dl?.message ?? '', /has not started downloading hf:\/\/org\/model: its pod cannot run yet/);
    assert.doesNotMatch(dl?.message ?? '', /is downloading/);
    const pods = component(artifactHealth(artifact, obs, undefined), 'DownloadJobPods');
    assert.equal(pods?.reason, 'FailedScheduling');
  });

  it('an image pull refused: waiting for its pod too (the pod condition carries the error)', () => {
    const pull = { errors: [infrastructureError('ImagePullBackOff', 'pod weights-dl-1-x: ImagePullBackOff')] };
    const obs = observe(job('weights-dl-1'), { downloadPods: pull });
    assert.equal(waitingForPod(obs), true);
    assert.equal(component(artifactHealth(artifact, obs, undefined), 'DownloadJob')?.reason, 'WaitingForPod');
  });

  it('once the downloader reports progress it is downloading, whatever the pods said before', () => {
    const log = '2026-01-01T00:00:00Z INFO progress 1073741/1073741824 bytes (0 %)';
    const obs = observe(job('weights-dl-1'), { downloadLog: log, downloadPods: unschedulable });
    assert.equal(waitingForPod(obs), false);
    assert.equal(component(artifactHealth(artifact, obs, undefined), 'DownloadJob')?.reason, 'Downloading');
  });

  it('a failed Job whose log ends on success names no false cause', () => {
    const log = [
      '2026-01-01T00:00:00Z INFO progress 1073741824/1073741824 bytes (100 %)',
      '2026-01-01T00:00:00Z INFO Download complete via XET: 1073741824 bytes in /cache',
    ].join('\n');
    const obs = observe(job('weights-dl-1', 'Failed'), { downloadLog: log });
    const f = categorize(obs.failure);
    assert.equal(f.reason, 'DownloadFailed');
    assert.match(f.message, /failed, but its log names no cause \(its last line: .*Download complete/);
    assert.match(f.message, /the container exited with an error after it/);
    // a last line that reports a failure is quoted as the cause
    const bad = observe(job('weights-dl-1', 'Failed'), { downloadLog: 'ERROR connection reset by peer' });
    assert.match(categorize(bad.failure).message, /failed: ERROR connection reset by peer; it is retried later$/);
  });
});

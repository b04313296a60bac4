// Every wait names its cause (docs/aim.md): the pods an AIM object waits for fail in each way the
// simulators act out (packages/sim/src/workloads/README.md, here through the MODELPLANE_SIM_FAIL env var a
// user's env carries into the pod), and the object's condition names the pod, the reason and what to do.
// Downloads (AIMArtifact), discovery (AIMServiceTemplate) and predictors (AIMService), one case per failure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import {
  AIM_API,
  applyFrozen,
  cond,
  type Json,
  Kinds,
  kubectlApply,
  type Obj,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';
import { recordHistory } from './helpers/history.ts';

const NS = 'pod-failures';
const fail = (mode: string) => [{ name: 'MODELPLANE_SIM_FAIL', value: mode }];

describe('AIM: every wait names its cause', { timeout: 180_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const apply = (obj: object) => kubectlApply(cluster, obj);
  const condOf = (kind: (typeof Kinds)[keyof typeof Kinds], name: string, type: string, reason: string) =>
    waitForObject(admin, kind, name, NS, `${type} reason ${reason}`, (o) => cond(o, type)?.reason === reason, {
      timeoutMs: 60_000,
    });
  const artifact = (name: string, extra: Json) =>
    apply({
      apiVersion: AIM_API,
      kind: 'AIMArtifact',
      metadata: { name, namespace: NS },
      spec: { sourceUri: `hf://org/${name}`, size: '1Gi', ...extra },
    });

  before(async () => {
    cluster = await startAimCluster('aim-pod-failures', { namespaces: [NS] });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a download in progress: status.progress moves while it runs, DownloadComplete Downloading then Verified', async () => {
    const history = await recordHistory(admin, Kinds.Artifacts, NS);
    try {
      await artifact('slow', { env: [{ name: 'AIM_DEBUG_SIMULATE_DOWNLOAD_MS', value: '4000' }] });
      const done = await waitForObject(
        admin,
        Kinds.Artifacts,
        'slow',
        NS,
        'Ready',
        (a) => a.status?.status === 'Ready',
        {
          timeoutMs: 60_000,
        },
      );
      await history.caughtUp('slow');
      const during = history
        .of('slow')
        .filter((v) => v.object.status?.status !== 'Ready')
        .map((v) => v.object.status?.progress?.percentage)
        .filter((p): p is number => typeof p === 'number' && p > 0 && p < 100);
      assert.ok(new Set(during).size >= 2, `progress moved during the download; seen ${JSON.stringify(during)}`);
      assert.deepEqual(
        during,
        [...during].sort((a, b) => a - b),
        'never backwards',
      );
      assert.ok(
        history.of('slow').some((v) => cond(v.object, 'DownloadComplete')?.reason === 'Downloading'),
        'Downloading while it ran',
      );
      assert.equal(cond(done, 'DownloadComplete')?.status, 'True');
      assert.equal(cond(done, 'DownloadComplete')?.reason, 'Verified');
      assert.equal(done.status?.progress?.percentage, 100);
    } finally {
      await history.stop();
    }
  });

  it('a download that stops moving: DownloadJobReady=False DownloadStalled after STALL_TIMEOUT, naming how long', async () => {
    await artifact('stuck', {
      env: [
        { name: 'AIM_DEBUG_SIMULATE_DOWNLOAD_MS', value: '20000' },
        { name: 'AIM_DEBUG_SIMULATE_STALL', value: '1' },
        { name: 'STALL_TIMEOUT', value: '3' },
      ],
    });
    const a = await condOf(Kinds.Artifacts, 'stuck', 'DownloadJobReady', 'DownloadStalled');
    assert.match(
      cond(a, 'DownloadJobReady')?.message,
      /download Job pod-failures\/stuck-dl-1-[a-z0-9]+ has made no progress for \d+ s: \d+ % of [\d.]+ GiB \(STALL_TIMEOUT 3 s\)/,
    );
    assert.equal(a.status?.status, 'Degraded');
  });

  it('a download whose PVC names a missing StorageClass: Unschedulable, the pod and the StorageClass named', async () => {
    await artifact('no-class', { storageClassName: 'no-such-class' });
    const a = await condOf(Kinds.Artifacts, 'no-class', 'DownloadJobPodsReady', 'FailedScheduling');
    const c = cond(a, 'DownloadJobPodsReady');
    assert.equal(c?.status, 'Unknown', 'a wait (Pending), not a failure');
    assert.match(c?.message, /pod no-class-dl-1-[a-z0-9-]+: .*unbound immediate PersistentVolumeClaims/);
    assert.match(c?.message, /check that the StorageClass exists/);
    assert.notEqual(a.status?.status, 'Ready');
    // the pod waits on its claim; the claim's own condition says why it stays unbound
    const pvc = await condOf(Kinds.Artifacts, 'no-class', 'CachePvcReady', 'ProvisioningFailed');
    assert.equal(cond(pvc, 'CachePvcReady')?.status, 'False');
    assert.match(cond(pvc, 'CachePvcReady')?.message, /storageclass.storage.k8s.io "no-such-class" not found/);
  });

  it('a download pod refused by the registry: ImagePullAuthFailure (AuthValid=False) naming the Secret to add and where', async () => {
    await artifact('pull-auth', { env: fail('ErrImagePull-auth') });
    const a = await condOf(Kinds.Artifacts, 'pull-auth', 'DownloadJobPodsReady', 'ImagePullAuthFailure');
    const c = cond(a, 'DownloadJobPodsReady');
    assert.match(c?.message, /pod pull-auth-dl-1-[a-z0-9-]+: container \S+: (ErrImagePull|ImagePullBackOff)/);
    assert.match(
      c?.message,
      /create a Secret of type kubernetes.io\/dockerconfigjson with credentials for \S+ and list it in spec.imagePullSecrets of AIMArtifact pod-failures\/pull-auth/,
    );
    assert.equal(cond(a, 'AuthValid')?.status, 'False');
    assert.equal(a.status?.status, 'Failed');
  });

  it('a download image that does not exist: ImageNotFound', async () => {
    await artifact('pull-missing', { env: fail('ImagePullBackOff') });
    const a = await condOf(Kinds.Artifacts, 'pull-missing', 'DownloadJobPodsReady', 'ImageNotFound');
    assert.match(cond(a, 'DownloadJobPodsReady')?.message, /not found; the image does not exist/);
  });

  it('a download that fills its disk: Failed StorageFull, naming the Job and the fix', async () => {
    await artifact('disk-full', { env: fail('DiskFull') });
    const a = await condOf(Kinds.Artifacts, 'disk-full', 'DownloadJobReady', 'StorageFull');
    assert.match(
      cond(a, 'DownloadJobReady')?.message,
      /download Job pod-failures\/disk-full-dl-1-[a-z0-9]+.*No space left/,
    );
  });

  it('a discovery pod no node can run: DiscoveryPodsReady=False FailedScheduling, naming the pod', async () => {
    await apply({
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'qwen8', namespace: NS },
      spec: { image: QWEN8_IMAGE, discovery: { createServiceTemplates: false } },
    });
    await apply({
      apiVersion: AIM_API,
      kind: 'AIMServiceTemplate',
      metadata: { name: 'stuck-discovery', namespace: NS },
      spec: { modelName: 'qwen8', env: fail('Unschedulable') },
    });
    const t = await condOf(Kinds.Templates, 'stuck-discovery', 'DiscoveryPodsReady', 'FailedScheduling');
    assert.match(
      cond(t, 'DiscoveryPodsReady')?.message,
      /pod discover-stuck-discovery-[a-z0-9-]+: .*nodes are available/,
    );
  });

  describe('predictors (a frozen Ready model and template: no download)', () => {
    const service = async (name: string, env: Json[]) => {
      await applyFrozen(
        admin,
        {
          apiVersion: AIM_API,
          kind: 'AIMModel',
          metadata: { name: 'frozen', namespace: NS },
          spec: { image: QWEN8_IMAGE },
        } as Obj,
        { status: 'Ready' },
      );
      await applyFrozen(
        admin,
        {
          apiVersion: AIM_API,
          kind: 'AIMServiceTemplate',
          metadata: { name: 'frozen-tpl', namespace: NS },
          spec: { modelName: 'frozen', hardware: { gpu: { model: 'MI300X', requests: 1 } } },
        } as Obj,
        { status: 'Ready', profile: { metadata: { type: 'optimized', gpu: 'MI300X', gpuCount: 1 } } },
      );
      await apply({
        apiVersion: AIM_API,
        kind: 'AIMService',
        metadata: { name, namespace: NS },
        spec: { model: { name: 'frozen' }, template: { name: 'frozen-tpl' }, env },
      });
    };

    it('OOMKilled: InferenceServicePodsReady=False PodOOMKilled, naming the pod and spec.resources', async () => {
      await service('oom', fail('OOMKilled'));
      const s = await condOf(Kinds.Services, 'oom', 'InferenceServicePodsReady', 'PodOOMKilled');
      const m = cond(s, 'InferenceServicePodsReady')?.message;
      assert.match(m, /pod oom-predictor-[a-z0-9-]+: container kserve-container was killed for running out of memory/);
      assert.match(m, /raise the memory limit \(spec.resources of AIMService pod-failures\/oom\)/);
      assert.notEqual(s.status?.status, 'Running');
    });

    it('CrashLoopBackOff: the pod and its last log line', async () => {
      await service('crash', fail('CrashLoopBackOff'));
      const s = await condOf(Kinds.Services, 'crash', 'InferenceServicePodsReady', 'CrashLoopBackOff');
      const m = cond(s, 'InferenceServicePodsReady')?.message;
      assert.match(m, /pod crash-predictor-[a-z0-9-]+: container kserve-container exited with code 1/);
      assert.match(m, /last log line: \S+/);
      assert.equal(s.status?.status, 'Degraded');
    });
  });
});

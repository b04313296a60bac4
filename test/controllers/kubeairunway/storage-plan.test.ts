// The storage planner, pure: managed PVCs (created once, size/class/access mode from the spec), claims that
// are missing, foreign or lost, the download Job once its PVC exists, progress from the downloader's log,
// the failure's cause and what to do, the retry (after the interval, or at once when the spec changed), and
// when the serving resource may be applied. Also how each provider mounts the volumes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  dynamoProvider,
  kaitoProvider,
  kuberayProvider,
  llmdProvider,
} from '../../../src/controllers/kubeairunway/providers/index.ts';
import {
  downloadJob,
  planStorage,
  resolveVolumes,
  type StorageFetch,
  storageDeletionMessage,
  storageObjects,
} from '../../../src/controllers/kubeairunway/storage/index.ts';
import {
  checkProviderCompatibility,
  defaultModelDeployment,
  type StorageVolume,
} from '../../../src/controllers/kubeairunway/validation/index.ts';
import type { Job, PersistentVolumeClaim } from '../../../src/engine/index.ts';

const NOW = Date.parse('2026-11-28T03:00:00Z');
const OPTS = { now: NOW, retryMs: 60_000, pollMs: 2_000 };
const CACHE: StorageVolume = { name: 'cache', purpose: 'modelCache', size: '20Gi' };

function md(volumes: StorageVolume[], extra: Partial<ModelDeployment['spec']> = {}): ModelDeployment {
  return defaultModelDeployment({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'qwen', namespace: 'team', uid: 'md-uid' },
    spec: {
      model: { id: 'Qwen/Qwen3-0.6B', storage: { volumes } },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
      ...extra,
    },
  });
}

const owner = [{ apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment', name: 'qwen', uid: 'md-uid' }];
const pvc = (
  name: string,
  phase: 'Bound' | 'Pending' | 'Lost' = 'Bound',
  extra: Partial<KubeObject['metadata']> = {},
): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'team', uid: `${name}-uid`, ownerReferences: owner, ...extra },
  status: { phase },
});
const job = (conditions: Array<{ type: string; lastTransitionTime?: string }> = []): Job =>
  ({
    ...downloadJob(md([CACHE]), resolveVolumes(md([CACHE]))[0]!, 'qwen-cache-uid'),
    status: { conditions: conditions.map((c) => ({ status: 'True', ...c })) },
  }) as Job;
const withAnnotations = (j: Job, a: Record<string, string>): Job => ({
  ...j,
  metadata: { ...j.metadata, annotations: { ...j.metadata.annotations, ...a } },
});
const fetched = (pvcs: Record<string, PersistentVolumeClaim | undefined>, j?: Job, log?: string): StorageFetch => ({
  pvcs: new Map(Object.entries(pvcs)),
  job: j,
  log,
});
const cond = (plan: ReturnType<typeof planStorage>, type: string) => plan?.conditions.find((c) => c.type === type);

describe('storage plan: claims', () => {
  it('no spec.model.storage: nothing planned', () => {
    assert.equal(planStorage(md([]), fetched({}), OPTS), undefined);
  });

  it('a managed volume: the PVC as the spec says (size, access mode, an explicit "" class), owned labels; the serving resource waits', () => {
    const plan = planStorage(md([{ ...CACHE, storageClassName: '' }]), fetched({ 'qwen-cache': undefined }), OPTS)!;
    assert.deepEqual(
      plan.apply.map((o) => `${o.kind}/${o.metadata.name}`),
      ['PersistentVolumeClaim/qwen-cache'],
    );
    const spec = plan.apply[0]!.spec as Record<string, unknown>;
    assert.deepEqual(spec.accessModes, ['ReadWriteMany']);
    assert.deepEqual(spec.resources, { requests: { storage: '20Gi' } });
    assert.equal(spec.storageClassName, '');
    assert.equal(plan.apply[0]!.metadata.labels?.['kubeairunway.ai/model-deployment'], 'qwen');
    assert.equal(cond(plan, 'StorageReady')?.reason, 'PVCCreating');
    assert.equal(cond(plan, 'ModelDownloaded')?.reason, 'WaitingForStorage');
    assert.equal(plan.block?.failed, false);
  });

  const claimCases: Array<[string, PersistentVolumeClaim | undefined, string, string, RegExp]> = [
    [
      'missing',
      undefined,
      'False',
      'PVCNotFound',
      /team\/data named by spec\.model\.storage\.volumes\[0\]\.claimName not found: create it/,
    ],
    ['lost', pvc('data', 'Lost'), 'False', 'PVCLost', /lost its volume: delete the PVC/],
    [
      'pending (WaitForFirstConsumer)',
      pvc('data', 'Pending'),
      'Unknown',
      'PVCPending',
      /waiting for .*team\/data to be bound/,
    ],
    ['bound', pvc('data'), 'True', 'PVCsBound', /bound: data/],
  ];
  for (const [what, claim, status, reason, message] of claimCases)
    it(`an existing claim, ${what}`, () => {
      const plan = planStorage(
        md([{ name: 'd', claimName: 'data', mountPath: '/data' }]),
        fetched({ data: claim }),
        OPTS,
      )!;
      assert.deepEqual(plan.apply, [], 'an existing claim is never created');
      const c = cond(plan, 'StorageReady')!;
      assert.deepEqual([c.status, c.reason], [status, reason]);
      assert.match(c.message, message);
      assert.equal(cond(plan, 'ModelDownloaded'), undefined, 'nothing to download into a claim of the user');
      // a pending claim does not hold the serving resource back (its first pod binds it); a missing or lost one does
      assert.equal(plan.block !== undefined, status === 'False', JSON.stringify(plan.block));
      if (status === 'False') assert.equal(plan.block?.failed, true);
    });

  it('a managed PVC of that name that is not ours: a conflict naming what to do; one of an earlier deployment of the name: wait', () => {
    const foreign = pvc('qwen-cache', 'Bound', { ownerReferences: [] });
    const plan = planStorage(md([CACHE]), fetched({ 'qwen-cache': foreign }), OPTS)!;
    assert.equal(cond(plan, 'StorageReady')?.reason, 'PVCConflict');
    assert.match(cond(plan, 'StorageReady')!.message, /not managed by this ModelDeployment: delete it, or rename/);
    assert.equal(plan.block?.failed, true);
    assert.deepEqual(plan.apply, [], 'and it is never taken over');
    const stale = pvc('qwen-cache', 'Bound', {
      ownerReferences: [{ ...owner[0]!, uid: 'old' }],
      labels: { 'kubeairunway.ai/managed-by': 'kubeairunway' },
    });
    const waiting = planStorage(md([CACHE]), fetched({ 'qwen-cache': stale }), OPTS)!;
    assert.equal(cond(waiting, 'StorageReady')?.reason, 'PVCFromPreviousDeployment');
    assert.equal(waiting.block?.failed, false);
  });
});

describe('storage plan: the download', () => {
  const bound = { 'qwen-cache': pvc('qwen-cache') };

  it('the PVC exists: the download Job (the downloader, hf://<model.id>, the token by reference, the PVC, its uid)', () => {
    const m = md([CACHE], {
      secrets: { huggingFaceToken: 'hf' },
      env: [{ name: 'HF_ENDPOINT', value: 'https://mirror' }],
    });
    const plan = planStorage(m, fetched(bound), OPTS)!;
    const j = plan.apply.find((o) => o.kind === 'Job')!;
    assert.equal(j.metadata.name, 'qwen-model-download');
    assert.equal(j.metadata.annotations?.['kubeairunway.ai/download-pvc-uid'], 'qwen-cache-uid');
    assert.equal(j.metadata.labels?.['kubeairunway.ai/job-type'], 'model-download');
    const pod = (j.spec as { template: { spec: Record<string, any> } }).template.spec;
    const c = pod.containers[0];
    assert.deepEqual(c.args, ['download', 'hf://Qwen/Qwen3-0.6B']);
    assert.deepEqual(pod.volumes, [{ name: 'model-cache', persistentVolumeClaim: { claimName: 'qwen-cache' } }]);
    const env = Object.fromEntries(c.env.map((e: { name: string }) => [e.name, e]));
    assert.deepEqual(env.HF_TOKEN.valueFrom, { secretKeyRef: { name: 'hf', key: 'HF_TOKEN' } });
    assert.equal(env.HF_ENDPOINT.value, 'https://mirror');
    assert.equal(cond(plan, 'ModelDownloaded')?.reason, 'Downloading');
    assert.equal(plan.requeueAfterMs, 2_000);
    assert.equal(plan.block?.reason, 'Downloading');
  });

  it('running: progress from the downloader log', () => {
    const log = [
      '2026-11-28T03:00:00Z INFO Trying protocol XET (attempt 1/2) for hf://Qwen/Qwen3-0.6B',
      '2026-11-28T03:00:00Z INFO progress 536870912/1073741824 bytes (50 %)',
    ].join('\n');
    const plan = planStorage(md([CACHE]), fetched(bound, job(), log), OPTS)!;
    assert.deepEqual(plan.apply, []);
    assert.match(
      cond(plan, 'ModelDownloaded')!.message,
      /is downloading hf:\/\/Qwen\/Qwen3-0\.6B into PersistentVolumeClaim team\/qwen-cache: 50 % \(512\.0 MiB of 1\.0 GiB\), via XET \(protocol 1 of 2\)/,
    );
    assert.equal(plan.requeueAfterMs, 2_000);
  });

  it('complete: ModelDownloaded=True and the serving resource may go ahead', () => {
    const plan = planStorage(
      md([CACHE]),
      fetched(bound, job([{ type: 'Complete' }]), 'INFO Download complete via XET: 1 bytes in /cache'),
      OPTS,
    )!;
    assert.equal(cond(plan, 'ModelDownloaded')?.status, 'True');
    assert.equal(cond(plan, 'StorageReady')?.status, 'True');
    assert.equal(plan.block, undefined);
  });

  it('downloaded before and the Job gone since: not downloaded again', () => {
    const m = {
      ...md([CACHE]),
      status: {
        conditions: [
          {
            type: 'ModelDownloaded',
            status: 'True' as const,
            reason: 'ModelDownloaded',
            message: '',
            lastTransitionTime: '',
          },
        ],
      },
    };
    const plan = planStorage(m, fetched(bound), OPTS)!;
    assert.deepEqual(plan.apply, []);
    assert.equal(plan.block, undefined);
  });

  it('complete into a PVC that was recreated since: the Job is replaced', () => {
    const plan = planStorage(
      md([CACHE]),
      fetched({ 'qwen-cache': pvc('qwen-cache', 'Bound', { uid: 'new' }) }, job([{ type: 'Complete' }])),
      OPTS,
    )!;
    assert.equal(plan.delete[0]?.metadata.name, 'qwen-model-download');
    assert.equal(cond(plan, 'ModelDownloaded')?.reason, 'RetryingDownload');
  });

  const failedAt = new Date(NOW - 10_000).toISOString();
  const failures: Array<[string, string, RegExp]> = [
    [
      'a gated model (401)',
      'ERROR 401 Client Error: Unauthorized for url: https://huggingface.co/api/models/Qwen/Qwen3-0.6B',
      /401 Client Error.*needs a Hugging Face token: set spec\.secrets\.huggingFaceToken to a Secret whose HF_TOKEN key may read it/,
    ],
    [
      'a model that does not exist',
      'ERROR 404 Client Error: Repository Not Found',
      /check spec\.model\.id \(Qwen\/Qwen3-0\.6B\)/,
    ],
    [
      'a full volume',
      'OSError: [Errno 28] No space left on device',
      /spec\.model\.storage\.volumes\[0\]\.size \(20Gi\) is too small/,
    ],
    [
      'anything else',
      'ERROR every protocol failed (XET, HF_TRANSFER)',
      /every protocol failed.*see kubectl logs -n team job\/qwen-model-download/,
    ],
  ];
  for (const [what, line, message] of failures)
    it(`failed, ${what}: DownloadFailed with the cause and what to do, Failed until the retry`, () => {
      const plan = planStorage(
        md([CACHE]),
        fetched(bound, job([{ type: 'Failed', lastTransitionTime: failedAt }]), line),
        OPTS,
      )!;
      const c = cond(plan, 'ModelDownloaded')!;
      assert.deepEqual([c.status, c.reason], ['False', 'DownloadFailed']);
      assert.match(c.message, message);
      assert.match(c.message, /retrying at 2026-11-28T03:00:50Z \(or delete the Job to retry now\)/);
      assert.equal(plan.block?.failed, true);
      assert.deepEqual(plan.delete, []);
      assert.equal(plan.requeueAfterMs, 50_000);
    });

  it('failed and the retry is due: the Job is replaced', () => {
    const old = new Date(NOW - 61_000).toISOString();
    const plan = planStorage(
      md([CACHE]),
      fetched(bound, job([{ type: 'Failed', lastTransitionTime: old }]), 'ERROR x'),
      OPTS,
    )!;
    assert.equal(plan.delete[0]?.metadata.name, 'qwen-model-download');
    assert.equal(cond(plan, 'ModelDownloaded')?.reason, 'RetryingDownload');
    assert.equal(plan.block?.failed, false);
  });

  it('failed, and the spec changed since (a token Secret named): retried at once', () => {
    const stale = withAnnotations(job([{ type: 'Failed', lastTransitionTime: failedAt }]), {
      'kubeairunway.ai/download-spec': 'built-from-older-spec',
    });
    const plan = planStorage(
      md([CACHE], { secrets: { huggingFaceToken: 'hf' } }),
      fetched(bound, stale, 'ERROR 401 Unauthorized'),
      OPTS,
    )!;
    assert.equal(plan.delete.length, 1);
    assert.match(cond(plan, 'ModelDownloaded')!.message, /the spec changed since the failed download/);
  });

  it('the previous Job still being deleted: wait, then create it again', () => {
    const going = job([{ type: 'Failed' }]);
    going.metadata.deletionTimestamp = new Date(NOW).toISOString();
    const plan = planStorage(md([CACHE]), fetched(bound, going), OPTS)!;
    assert.deepEqual(plan.apply, []);
    assert.equal(plan.block?.reason, 'RetryingDownload');
  });

  it('no download for a custom model, nor into an existing or read-only claim', () => {
    assert.equal(
      cond(
        planStorage(md([CACHE], { model: { source: 'custom', storage: { volumes: [CACHE] } } }), fetched(bound), OPTS),
        'ModelDownloaded',
      ),
      undefined,
    );
    const existing = planStorage(
      md([{ name: 'c', purpose: 'modelCache', claimName: 'mine' }]),
      fetched({ mine: pvc('mine') }),
      OPTS,
    );
    assert.equal(cond(existing, 'ModelDownloaded'), undefined);
    assert.equal(existing?.block, undefined);
  });
});

describe('what storage creates, and what deleting takes (render, the DeletingStorage event)', () => {
  it('the managed PVCs, then the download Job; nothing for existing claims', () => {
    const m = md([CACHE, { name: 'data', claimName: 'team-data', mountPath: '/data' }]);
    assert.deepEqual(
      storageObjects(m).map((o) => `${o.kind}/${o.metadata.name}`),
      ['PersistentVolumeClaim/qwen-cache', 'Job/qwen-model-download'],
    );
    assert.match(storageDeletionMessage(m)!, /team\/qwen-cache \(20Gi\) are deleted with the ModelDeployment/);
    assert.equal(storageDeletionMessage(md([{ name: 'data', claimName: 'team-data', mountPath: '/data' }])), undefined);
  });
});

describe('providers mount the volumes', () => {
  const m = md([CACHE, { name: 'data', claimName: 'team-data', mountPath: '/data', readOnly: true }]);
  const mounts = [
    { name: 'cache', mountPath: '/model-cache' },
    { name: 'data', mountPath: '/data', readOnly: true },
  ];
  const volumes = [
    { name: 'cache', persistentVolumeClaim: { claimName: 'qwen-cache' } },
    { name: 'data', persistentVolumeClaim: { claimName: 'team-data', readOnly: true } },
  ];
  const hfHome = (env: Array<{ name: string; value?: string }> | undefined) =>
    env?.find((e) => e.name === 'HF_HOME')?.value;

  it('llm-d: the Deployment pod mounts them, HF_HOME at the model cache', () => {
    const pod = (llmdProvider.transform(m).spec as any).template.spec;
    assert.deepEqual(pod.volumes, volumes);
    assert.deepEqual(pod.containers[0].volumeMounts, mounts);
    assert.equal(hfHome(pod.containers[0].env), '/model-cache');
  });

  it('KubeRay: the head and every worker', () => {
    const ray = (kuberayProvider.transform(m).spec as any).rayClusterConfig;
    for (const t of [ray.headGroupSpec.template, ...ray.workerGroupSpecs.map((g: any) => g.template)]) {
      assert.deepEqual(t.spec.volumes, volumes);
      assert.deepEqual(t.spec.containers[0].volumeMounts, mounts);
    }
  });

  it('Dynamo: spec.pvcs and the workers’ volumeMounts, HF_HOME in their envs', () => {
    const dgd = dynamoProvider.transform(m) as any;
    assert.deepEqual(dgd.spec.pvcs, [
      { name: 'qwen-cache', create: false },
      { name: 'team-data', create: false },
    ]);
    const w = dgd.spec.services.VllmWorker;
    assert.deepEqual(w.volumeMounts, [
      { name: 'qwen-cache', mountPoint: '/model-cache' },
      { name: 'team-data', mountPoint: '/data' },
    ]);
    assert.equal(hfHome(w.envs), '/model-cache');
  });

  it('KAITO: the llama.cpp template; its vLLM preset and AIM refuse storage as incompatible', () => {
    const cpu = md([CACHE], { engine: { type: 'llamacpp' }, image: 'llama:1', resources: { cpu: '4' } });
    const t = (kaitoProvider.transform(cpu) as any).inference.template;
    assert.deepEqual(t.spec.volumes, [volumes[0]]);
    assert.deepEqual(t.spec.containers[0].volumeMounts, [mounts[0]]);
    assert.match(
      checkProviderCompatibility('kaito', m.spec).join(),
      /KAITO's vLLM preset .* spec\.model\.storage cannot be mounted/,
    );
    assert.match(checkProviderCompatibility('aim', m.spec).join(), /AIM caches model weights itself/);
    assert.deepEqual(checkProviderCompatibility('llmd', m.spec), []);
  });

  it('no storage: no volumes anywhere', () => {
    const pod = (llmdProvider.transform(md([])).spec as any).template.spec;
    assert.equal(pod.volumes, undefined);
    assert.equal(pod.containers[0].volumeMounts, undefined);
    assert.equal(hfHome(pod.containers[0].env), undefined);
  });
});

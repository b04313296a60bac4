// Managed model storage on the `modelplane dev` cluster, every controller running (the llm-d provider with
// a shortened download retry): a ModelDeployment with a managed modelCache gets its PVC and download Job,
// shows the download's progress while nothing serves yet, then ModelDownloaded=True, then the vLLM
// Deployment mounting the PVC, then Running. A download of a gated model fails with the cause and what to
// do, is retried after the interval, and once the token Secret is named it is retried at once and succeeds.
// Deleting the deployment takes the PVC and the Job with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Deployments } from '@modelplane/runtime/client';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { stringify } from 'yaml';
import { type ModelDeployment, ModelDeployments } from '../../src/apis/kubeairunway/index.ts';
import { providerControllerSet } from '../../src/controllers/kubeairunway/provider/index.ts';
import { llmdProvider } from '../../src/controllers/kubeairunway/providers/index.ts';
import { CONTROLLER_SETS } from '../../src/controllers/sets.ts';
import { eventsFor } from '../controllers/kubeairunway/provider-helpers.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'storage-e2e';
const RETRY_MS = 3_000;
const Jobs = kindRef<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
  'batch/v1',
  'Job',
);
const Pvcs = kindRef<KubeObject & { spec?: Record<string, unknown>; status?: { phase?: string } }>(
  'v1',
  'PersistentVolumeClaim',
);
const Pods = kindRef<KubeObject & { spec?: { volumes?: Array<Record<string, any>> } }>('v1', 'Pod');

function deployment(name: string, modelId: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: NS },
    spec: {
      model: { id: modelId, storage: { volumes: [{ name: 'cache', purpose: 'modelCache', size: '10Gi' }] } },
      engine: { type: 'vllm' },
      provider: { name: 'llmd' },
      resources: { gpu: { count: 1 } },
      ...extra,
    },
  };
}

const condition = (md: ModelDeployment | undefined, type: string) =>
  md?.status?.conditions?.find((c) => c.type === type);

describe('ModelDeployment managed storage on modelplane dev', { timeout: 120_000 }, () => {
  let c: DevTestCluster;
  const md = (name: string) => c.admin.get(ModelDeployments, name, NS);
  const waitCondition = (
    name: string,
    type: string,
    test: (cond: { status: string; reason?: string; message?: string }) => boolean,
  ) =>
    waitFor(
      `${name}: ${type}`,
      async () => {
        const m = await md(name);
        const cond = condition(m, type);
        return cond && test(cond) ? m : undefined;
      },
      { timeoutMs: 60_000 },
    );

  before(async () => {
    const llmd = providerControllerSet(llmdProvider, { downloadRetryMs: RETRY_MS });
    // what a ModelDeployment on llm-d needs: the core (selection, validation), the webhooks (defaults) and llm-d
    const core = CONTROLLER_SETS.filter((s) => s.name === 'kubeairunway-core' || s.name === 'webhooks');
    c = await startDevTestCluster({ controllers: true, namespaces: [NS], sets: [...core, llmd] });
  });

  after(async () => {
    await c?.stop();
  });

  it('download progress → ModelDownloaded=True → the Deployment mounts the PVC → Running', async () => {
    // the simulated downloader takes 4 s, so its progress can be seen (the status polls it every 2 s)
    const slow = { env: [{ name: 'AIM_DEBUG_SIMULATE_DOWNLOAD_MS', value: '4000' }] };
    await c.k(['apply', '-f', '-'], stringify(deployment('qwen-cached', 'Qwen/Qwen3-0.6B', slow)));

    // the message may carry the downloader's progress (how far, of how much) once it has reported some
    const downloading = await waitCondition(
      'qwen-cached',
      'ModelDownloaded',
      (x) => x.reason === 'Downloading' && /via XET/.test(x.message ?? ''),
    );
    assert.match(
      condition(downloading, 'ModelDownloaded')!.message!,
      /download Job storage-e2e\/qwen-cached-model-download is downloading hf:\/\/Qwen\/Qwen3-0\.6B into PersistentVolumeClaim storage-e2e\/qwen-cached-cache: (\d+ % \([\d.]+ (?:[KMGT]i)?B of [\d.]+ (?:[KMGT]i)?B\), )?via XET \(protocol 1 of 2\)/,
    );
    assert.equal(downloading.status?.phase, 'Pending');
    assert.equal(
      await c.admin.getOrUndefined(Deployments, 'qwen-cached', NS),
      undefined,
      'nothing serves before the model is downloaded',
    );
    const pvc = await c.admin.get(Pvcs, 'qwen-cached-cache', NS);
    assert.deepEqual(pvc.spec?.accessModes, ['ReadWriteMany']);
    assert.deepEqual(pvc.spec?.resources, { requests: { storage: '10Gi' } });
    assert.equal(pvc.metadata.ownerReferences?.[0]?.uid, downloading.metadata.uid, 'owned by the deployment');

    const downloaded = await waitCondition('qwen-cached', 'ModelDownloaded', (x) => x.status === 'True');
    // the protocol is named while downloading (above); the final message names it when the finished pod's log
    // could be read at that moment, which a live log read cannot promise
    assert.match(
      condition(downloaded, 'ModelDownloaded')!.message!,
      /^download Job storage-e2e\/qwen-cached-model-download downloaded hf:\/\/Qwen\/Qwen3-0\.6B into PersistentVolumeClaim storage-e2e\/qwen-cached-cache(?: via XET)?$/,
    );
    const running = await waitFor(
      'qwen-cached Running',
      async () => {
        const m = await md('qwen-cached');
        return m.status?.phase === 'Running' ? m : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(condition(running, 'StorageReady')?.status, 'True');
    const pods = (
      await c.admin.list(Pods, { namespace: NS, labelSelector: 'kubeairunway.ai/model-deployment=qwen-cached' })
    ).items;
    assert.ok(pods.length > 0);
    for (const p of pods)
      assert.ok(
        p.spec?.volumes?.some((v) => v.persistentVolumeClaim?.claimName === 'qwen-cached-cache'),
        `pod ${p.metadata.name} mounts the model cache`,
      );
    assert.equal((await c.admin.get(Pvcs, 'qwen-cached-cache', NS)).status?.phase, 'Bound');
  });

  it('a failing download says why and what to do, is retried, and succeeds once the token is named', async () => {
    await c.k(['apply', '-f', '-'], stringify(deployment('gated', 'acme/gated-llm')));
    const failed = await waitCondition('gated', 'ModelDownloaded', (x) => x.reason === 'DownloadFailed');
    const message = condition(failed, 'ModelDownloaded')!.message!;
    assert.match(message, /401 Client Error: Unauthorized/);
    assert.match(message, /acme\/gated-llm needs a Hugging Face token: set spec\.secrets\.huggingFaceToken/);
    assert.match(message, /retrying at /);
    assert.equal(failed.status?.phase, 'Failed');
    assert.equal(await c.admin.getOrUndefined(Deployments, 'gated', NS), undefined);
    // (the retry may already have replaced the failed Job on a slow machine: then any Job is the retry's)
    const first = (await c.admin.getOrUndefined(Jobs, 'gated-model-download', NS))?.metadata.uid;

    // the retry interval passes: a new download Job runs (and fails again: still no token)
    await waitFor(
      'a retried download Job',
      async () => {
        const j = await c.admin.getOrUndefined(Jobs, 'gated-model-download', NS);
        return j && j.metadata.uid !== first ? j : undefined;
      },
      { timeoutMs: 30_000 },
    );

    await c.admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hf-token', namespace: NS },
      stringData: { HF_TOKEN: 'hf_test' },
    } as KubeObject);
    await c.k([
      'patch',
      'md',
      'gated',
      '-n',
      NS,
      '--type=merge',
      '-p',
      '{"spec":{"secrets":{"huggingFaceToken":"hf-token"}}}',
    ]);
    await waitCondition('gated', 'ModelDownloaded', (x) => x.status === 'True');
    const job = await c.admin.get(Jobs, 'gated-model-download', NS);
    const env = (job.spec as any).template.spec.containers[0].env as Array<{ name: string; valueFrom?: unknown }>;
    assert.deepEqual(env.find((e) => e.name === 'HF_TOKEN')?.valueFrom, {
      secretKeyRef: { name: 'hf-token', key: 'HF_TOKEN' },
    });
    await waitFor('gated Running', async () => ((await md('gated')).status?.phase === 'Running' ? true : undefined), {
      timeoutMs: 60_000,
    });
  });

  it('deleting the deployment takes its PVC and download Job with it, and says so', async () => {
    await c.k(['delete', 'md', 'qwen-cached', '-n', NS, '--wait=true']);
    await waitFor(
      'the PVC and Job gone',
      async () => {
        const [pvc, job] = await Promise.all([
          c.admin.getOrUndefined(Pvcs, 'qwen-cached-cache', NS),
          c.admin.getOrUndefined(Jobs, 'qwen-cached-model-download', NS),
        ]);
        return !pvc && !job ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const [ev] = await eventsFor(c.admin, NS, 'qwen-cached', 'DeletingStorage');
    assert.match(
      ev?.note ?? '',
      /the managed PersistentVolumeClaims storage-e2e\/qwen-cached-cache \(10Gi\) are deleted with the ModelDeployment, and the downloaded model with them/,
    );
  });
});

// The one-write rule under refused writes (docs/llamastack.md, "When a write fails"): an admission webhook
// refuses the controller's ConfigMap or Deployment write the way a ResourceQuota, a policy engine, the
// ConfigMap size limit or a conflict would. The running Deployment and the ConfigMap its pods mount stay
// exactly as they were, status names the write and its cause and never says DeploymentUpdateSucceeded while
// the refusal lasts, and once it is lifted the controller gets there on its own retry (no spec change).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigMaps, type KubeClient, Pods } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { type LlamaStackDistribution, LlamaStackDistributions } from '../../../src/apis/llamastack/index.ts';
import { registerLlamaStackController } from '../../../src/controllers/llamastack/index.ts';
import { Deployments } from '../../../src/controllers/llamastack/names.ts';
import { type DenyingWebhook, startDenyingWebhook } from '../../helpers/denying-webhook.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type Json = Record<string, any>;
const NS = 'llama-deny';
const NAME = 'guarded';
const log = new Logger({}, parseLogLevel(process.env.LLS_TEST_LOG, 'silent'));
const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined =>
  ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);
const volumeOf = (d: Json | undefined): string | undefined =>
  d?.spec?.template?.spec?.volumes?.find((v: Json) => v.name === 'user-config')?.configMap?.name;

const spec = (models: string[]) => ({
  distribution: { name: 'remote-vllm' },
  providers: { inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1' }] },
  resources: { models: models.map((name) => ({ name })) },
});

const CASES = [
  {
    what: 'a ResourceQuota refusing the new ConfigMap',
    denial: {
      resource: 'configmaps',
      code: 403,
      message:
        'exceeded quota: cm-quota, requested: count/configmaps=1, used: count/configmaps=4, limited: count/configmaps=4',
    },
    reason: 'QuotaExceeded',
    write: /apply ConfigMap llama-deny\/guarded-config-[0-9a-f]{8}: .*exceeded quota/,
  },
  {
    what: 'a policy refusing the new ConfigMap',
    denial: { resource: 'configmaps', code: 403, message: 'new configuration is frozen by policy' },
    reason: 'AdmissionDenied',
    write: /apply ConfigMap llama-deny\/guarded-config-[0-9a-f]{8}: .*frozen by policy/,
  },
  {
    what: 'the ConfigMap size limit',
    denial: {
      resource: 'configmaps',
      code: 422,
      message: 'ConfigMap "x" is invalid: []: Too long: must have at most 1048576 bytes',
    },
    reason: 'ObjectTooLarge',
    write: /apply ConfigMap .*Too long/,
  },
  {
    what: 'a conflict on the ConfigMap',
    denial: { resource: 'configmaps', code: 409, message: 'the object has been modified' },
    reason: 'WriteConflict',
    write: /apply ConfigMap .*modified/,
  },
  {
    what: 'a policy refusing the Deployment update',
    denial: { resource: 'deployments', code: 403, message: 'deployments are frozen' },
    reason: 'AdmissionDenied',
    write: /apply Deployment llama-deny\/guarded: .*deployments are frozen/,
  },
];

describe('LlamaStackDistribution: a refused write keeps the running Deployment', { timeout: 300_000 }, () => {
  let cluster: OperatorTestCluster<Controller>;
  let admin: KubeClient;
  let webhook: DenyingWebhook;
  const get = () => admin.getOrUndefined(LlamaStackDistributions, NAME, NS);
  const deployment = () => admin.getOrUndefined(Deployments, NAME, NS) as Promise<Json | undefined>;
  const apply = (models: string[]) =>
    admin.apply({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: NAME, namespace: NS },
      spec: spec(models),
    } as LlamaStackDistribution);

  before(async () => {
    cluster = await startOperatorTestCluster({
      name: 'llamastack-deny',
      log,
      namespaces: [NS, 'modelplane-system'],
      register: (mgr) => registerLlamaStackController(mgr, { operatorNamespace: 'modelplane-system' }),
    });
    admin = cluster.admin;
    webhook = await startDenyingWebhook(admin, 'deny-llama-writes', NS, [
      { group: '', resource: 'configmaps' },
      { group: 'apps', resource: 'deployments' },
    ]);
    await apply(['m0']);
    await waitFor('Ready', async () => ((await get())?.status?.phase === 'Ready' ? true : undefined), {
      timeoutMs: 60_000,
      detail: async () => (await get())?.status,
    });
  });
  after(async () => {
    await webhook?.stop();
    await cluster?.stop();
  });

  /** every pod of the Deployment mounts a ConfigMap that exists with its config.yaml */
  async function podsSeeTheirConfig(): Promise<void> {
    const pods = await admin.list(Pods, { namespace: NS, labelSelector: `app.kubernetes.io/instance=${NAME}` });
    assert.ok(pods.items.length > 0, 'the Deployment has pods');
    for (const p of pods.items) {
      const cm = (p as Json).spec?.volumes?.find((v: Json) => v.name === 'user-config')?.configMap?.name;
      const mounted = cm ? await admin.getOrUndefined(ConfigMaps, cm, NS) : undefined;
      assert.match(mounted?.data?.['config.yaml'] ?? '', /^version: 2$/m, `pod ${p.metadata.name} mounts ${cm}`);
    }
  }

  CASES.forEach((c, i) => {
    it(`${c.what}: Failed/${c.reason} naming the write, the Deployment untouched, then a retry gets through`, async () => {
      const before = (await deployment())!;
      const mounted = volumeOf(before)!;
      const refusedBefore = webhook.refused.length;
      webhook.deny(c.denial);
      await apply(['m0', `m${i + 1}`]);
      const generation = (await get())!.metadata.generation!;
      const seen: string[] = [];
      const failed = await waitFor(
        `Failed/${c.reason}`,
        async () => {
          const o = await get();
          const du = cond(o, 'DeploymentUpdated');
          if (du && (du.observedGeneration ?? 0) >= generation) seen.push(du.reason);
          return o?.status?.phase === 'Failed' && cond(o, 'Ready')?.reason === c.reason ? o : undefined;
        },
        { timeoutMs: 60_000, detail: async () => (await get())?.status },
      );
      assert.ok(webhook.refused.length > refusedBefore, 'the webhook refused a write');
      const du = cond(failed, 'DeploymentUpdated')!;
      assert.equal(du.status, 'False');
      assert.equal(du.reason, 'DeploymentUpdateFailed');
      assert.match(du.message, c.write);
      assert.match(du.message, /the running Deployment was left unchanged/);
      const now = (await deployment())!;
      assert.equal(now.metadata.generation, before.metadata.generation, 'the Deployment was not written');
      assert.equal(volumeOf(now), mounted);
      await podsSeeTheirConfig();
      // the refusal is retried with backoff: still refused, still never "succeeded"
      const retried = webhook.refused.length;
      await waitFor('a retry of the refused write', () => webhook.refused.length > retried || undefined, {
        timeoutMs: 30_000,
      });
      assert.ok(!seen.includes('DeploymentUpdateSucceeded'), `status said ${seen.join(', ')} while refused`);
      assert.equal((await deployment())!.metadata.generation, before.metadata.generation);

      webhook.deny(undefined);
      const switched = await waitFor(
        'the Deployment on the new config after the refusal is lifted',
        async () => {
          const d = await deployment();
          const o = await get();
          return volumeOf(d) !== mounted && cond(o, 'DeploymentUpdated')?.reason === 'DeploymentUpdateSucceeded'
            ? d
            : undefined;
        },
        { timeoutMs: 60_000, detail: async () => (await get())?.status },
      );
      assert.equal(switched.metadata.generation, before.metadata.generation + 1, 'one Deployment write');
      const cm = await admin.getOrUndefined(ConfigMaps, volumeOf(switched)!, NS);
      assert.match(cm!.data!['config.yaml']!, new RegExp(`model_id: m${i + 1}`));
      await waitFor('Ready again', async () => ((await get())?.status?.phase === 'Ready' ? true : undefined), {
        timeoutMs: 60_000,
      });
    });
  });
});

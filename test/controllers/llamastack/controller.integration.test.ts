// The LlamaStackDistribution controller end to end on the dev cluster (API server, Deployment/ReplicaSet/
// pod simulators), the operator in its own Manager: the generated ConfigMap and its retention, one
// Deployment write per config change, secret rotation, failures that keep the running Deployment, and
// a provider whose endpoint comes from a ModelDeployment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ConfigMap, ConfigMaps, type KubeClient, Secrets } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { ModelDeployments } from '../../../src/apis/kubeairunway/index.ts';
import { type LlamaStackDistribution, LlamaStackDistributions } from '../../../src/apis/llamastack/index.ts';
import { registerLlamaStackController } from '../../../src/controllers/llamastack/index.ts';
import { Deployments } from '../../../src/controllers/llamastack/names.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type Json = Record<string, any>;
const NS = 'llama';
const log = new Logger({}, parseLogLevel(process.env.LLS_TEST_LOG, 'silent'));
const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined =>
  ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);
const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as KindRef<KubeObject & Json>;
const HPA = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } as KindRef<KubeObject & Json>;
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' } as KindRef<KubeObject & Json>;

function llsd(name: string, spec: Json): LlamaStackDistribution {
  return {
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name, namespace: NS },
    spec,
  } as LlamaStackDistribution;
}

describe('LlamaStackDistribution controller on the dev cluster', { timeout: 180_000 }, () => {
  let cluster: OperatorTestCluster<Controller>;
  let admin: KubeClient;
  const get = (name: string) => admin.getOrUndefined(LlamaStackDistributions, name, NS);
  const deployment = (name: string) => admin.getOrUndefined(Deployments, name, NS) as Promise<Json | undefined>;
  const generated = async (name: string) =>
    (
      await admin.list(ConfigMaps, {
        namespace: NS,
        labelSelector: `llamastack.io/generated-config=true,app.kubernetes.io/instance=${name}`,
      })
    ).items;
  const volumeOf = (d: Json | undefined) =>
    d?.spec?.template?.spec?.volumes?.find((v: Json) => v.name === 'user-config')?.configMap?.name;
  const where = (what: string, name: string, ok: (o: LlamaStackDistribution) => boolean, timeoutMs = 30_000) =>
    waitFor(
      `LlamaStackDistribution ${name}: ${what}`,
      async () => {
        const o = await get(name);
        return o && ok(o) ? o : undefined;
      },
      { timeoutMs, detail: async () => (await get(name))?.status },
    );

  before(async () => {
    cluster = await startOperatorTestCluster({
      name: 'llamastack-operator',
      log,
      namespaces: [NS, 'modelplane-system'],
      register: (mgr) => registerLlamaStackController(mgr, { operatorNamespace: 'modelplane-system', recheckMs: 500 }),
    });
    admin = cluster.admin;
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'vllm-creds', namespace: NS },
      stringData: { token: 'first' },
    } as KubeObject);
  });
  after(() => cluster?.stop());

  const base = {
    distribution: { name: 'remote-vllm' },
    providers: {
      inference: [
        {
          id: 'vllm-primary',
          provider: 'vllm',
          endpoint: 'http://vllm:8000/v1',
          apiKey: { name: 'vllm-creds', key: 'token' },
        },
      ],
    },
    resources: { models: [{ name: 'llama3' }] },
  };

  it('generates an immutable, owned, hashed ConfigMap and a Deployment that mounts it, then becomes Ready', async () => {
    await admin.apply(llsd('basic', base));
    const ready = await where('Ready', 'basic', (o) => o.status?.phase === 'Ready');
    const [cm] = await generated('basic');
    assert.match(cm!.metadata.name!, /^basic-config-[0-9a-f]{8}$/);
    assert.equal(cm!.immutable, true);
    assert.equal(cm!.metadata.ownerReferences?.[0]?.uid, ready.metadata.uid);
    assert.match(cm!.data!['config.yaml']!, /api_token: "\$\{env\.LLSD_VLLM_PRIMARY_API_KEY\}"/);
    assert.doesNotMatch(cm!.data!['config.yaml']!, /first/, 'no secret value in the ConfigMap');
    const d = await deployment('basic');
    assert.equal(volumeOf(d), cm!.metadata.name);
    const env = d!.spec.template.spec.containers[0].env as Json[];
    assert.deepEqual(env.find((e) => e.name === 'LLSD_VLLM_PRIMARY_API_KEY')?.valueFrom, {
      secretKeyRef: { name: 'vllm-creds', key: 'token' },
    });
    assert.equal(d!.spec.template.spec.containers[0].image, 'docker.io/llamastack/distribution-remote-vllm:0.7.3');
    assert.equal(cond(ready, 'ConfigGenerated')?.reason, 'ConfigGenerationSucceeded');
    assert.match(
      cond(ready, 'ConfigGenerated')?.message,
      /^Generated config.yaml with \d+ providers and \d+ resources$/,
    );
    assert.equal(cond(ready, 'DeploymentUpdated')?.status, 'True');
    assert.equal(cond(ready, 'Available')?.reason, 'MinimumReplicasAvailable');
    assert.equal(cond(ready, 'SecretsResolved')?.reason, 'AllSecretsFound');
    assert.equal(ready.status?.resolvedDistribution?.image, 'docker.io/llamastack/distribution-remote-vllm:0.7.3');
    assert.equal(ready.status?.configGeneration?.configMapName, cm!.metadata.name);
    assert.equal(ready.status?.serviceURL, 'http://basic-service.llama.svc.cluster.local:8321');
  });

  it('an unchanged spec makes no new ConfigMap and no Deployment change; a change makes one of each, in one Deployment write', async () => {
    const before = await deployment('basic');
    await admin.apply({
      ...llsd('basic', base),
      metadata: { name: 'basic', namespace: NS, labels: { touched: 'yes' } },
    });
    await where('label seen', 'basic', (o) => o.metadata.labels?.touched === 'yes');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await generated('basic')).length, 1);
    assert.equal((await deployment('basic'))!.metadata.generation, before!.metadata.generation);
    const first = volumeOf(before);
    await admin.apply(llsd('basic', { ...base, resources: { models: [{ name: 'llama3' }, { name: 'qwen' }] } }));
    const after = await waitFor('Deployment on the new config', async () => {
      const d = await deployment('basic');
      return volumeOf(d) !== first ? d : undefined;
    });
    assert.equal(
      after!.metadata.generation,
      before!.metadata.generation + 1,
      'image, volume, env and annotations changed in one write',
    );
    const names = (await generated('basic')).map((c) => c.metadata.name);
    assert.ok(names.includes(first) && names.includes(volumeOf(after)), `old ConfigMap kept: ${names}`);
  });

  it('keeps only the newest two generated ConfigMaps after more changes', async () => {
    for (const extra of ['a', 'b']) {
      const prev = volumeOf(await deployment('basic'));
      await admin.apply(llsd('basic', { ...base, resources: { models: [{ name: 'llama3' }, { name: extra }] } }));
      await waitFor(
        `Deployment switched for ${extra}`,
        async () => volumeOf(await deployment('basic')) !== prev || undefined,
      );
    }
    const current = volumeOf(await deployment('basic'));
    const kept = await waitFor(
      'only two generated ConfigMaps',
      async () => {
        const list = await generated('basic');
        return list.length === 2 ? list : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.ok(kept.some((c) => c.metadata.name === current));
  });

  it('rolls the pods when a referenced secret value changes, not when only its labels do', async () => {
    const hash = async () =>
      (await deployment('basic'))?.spec.template.metadata.annotations?.['llamastack.io/secret-hash'];
    const h1 = await hash();
    assert.match(h1, /^[0-9a-f]{16}$/);
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'vllm-creds', namespace: NS, labels: { rotated: 'no' } },
      stringData: { token: 'first' },
    } as KubeObject);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(await hash(), h1);
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'vllm-creds', namespace: NS },
      stringData: { token: 'second' },
    } as KubeObject);
    await waitFor('secret hash changed', async () => ((await hash()) !== h1 ? true : undefined));
  });

  it('keeps the running Deployment when generation fails and says why', async () => {
    const before = await deployment('basic');
    await admin.apply(llsd('basic', { ...base, resources: { models: [{ name: 'llama3', provider: 'nope' }] } }));
    const failed = await where('Failed', 'basic', (o) => o.status?.phase === 'Failed');
    assert.equal(cond(failed, 'ConfigGenerated')?.reason, 'MissingProviderForResource');
    assert.match(
      cond(failed, 'ConfigGenerated')?.message,
      /spec.resources.models\[0\].provider: "nope" is not an inference provider/,
    );
    assert.equal(cond(failed, 'DeploymentUpdated')?.reason, 'DeploymentUpdateSkipped');
    const d = await deployment('basic');
    assert.equal(d!.metadata.generation, before!.metadata.generation);
    assert.equal(volumeOf(d), volumeOf(before));
  });

  it('reports a Secret deleted later with the field that references it', async () => {
    await admin.apply(llsd('basic', base));
    await where('Ready again', 'basic', (o) => o.status?.phase === 'Ready');
    await admin.delete(Secrets, 'vllm-creds', NS);
    const failed = await where(
      'SecretNotFound',
      'basic',
      (o) => cond(o, 'SecretsResolved')?.reason === 'SecretNotFound',
    );
    assert.equal(
      cond(failed, 'SecretsResolved')?.message,
      'Secret "vllm-creds" not found in namespace "llama". Referenced by: spec.providers.inference[0].apiKey',
    );
    assert.equal(failed.status?.phase, 'Failed');
    // one Warning says it (SecretResolutionFailed), not one per condition that follows from it
    const warnings = await waitFor('the Warning event', async () => {
      const all = await admin.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' } as KindRef<KubeObject & Json>, {
        namespace: NS,
      });
      const mine = all.items.filter(
        (e) => e.regarding?.name === 'basic' && e.type === 'Warning' && /vllm-creds/.test(e.note ?? ''),
      );
      return mine.length > 0 ? mine : undefined;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const all = await admin.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' } as KindRef<KubeObject & Json>, {
      namespace: NS,
    });
    const about = all.items.filter(
      (e) => e.regarding?.name === 'basic' && e.type === 'Warning' && /vllm-creds/.test(e.note ?? ''),
    );
    assert.deepEqual(
      about.map((e) => e.reason),
      ['SecretResolutionFailed'],
      `Warnings about the missing Secret: ${JSON.stringify(about.map((e) => [e.reason, e.note]))} (first seen ${warnings.length})`,
    );
  });

  it('builds the PVC, Recreate strategy, PDB and spread constraints for storage and several replicas, and an HPA for autoscaling', async () => {
    await admin.apply(llsd('big', { distribution: { name: 'starter' }, workload: { replicas: 2, storage: {} } }));
    const pvc = await waitFor('PVC', () => admin.getOrUndefined(PVC, 'big-pvc', NS));
    assert.deepEqual(pvc.spec.accessModes, ['ReadWriteOnce']);
    assert.equal(pvc.spec.resources.requests.storage, '10Gi');
    const d = await waitFor('Deployment', () => deployment('big'));
    assert.equal(d.spec.strategy.type, 'Recreate');
    assert.equal(d.spec.template.spec.topologySpreadConstraints.length, 3);
    assert.ok(d.spec.template.spec.affinity.podAntiAffinity);
    const pdb = await waitFor('PDB', () => admin.getOrUndefined(PDB, 'big-pdb', NS));
    assert.equal(pdb.spec.maxUnavailable, 1);
    await admin.apply(
      llsd('big', {
        distribution: { name: 'starter' },
        workload: { replicas: 2, storage: {}, autoscaling: { minReplicas: 1, maxReplicas: 4 } },
      }),
    );
    const hpa = await waitFor('HPA', () => admin.getOrUndefined(HPA, 'big-hpa', NS));
    assert.equal(hpa.spec.minReplicas, 2);
    assert.equal(hpa.spec.maxReplicas, 4);
    assert.deepEqual(hpa.spec.metrics, [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    // the HPA owns replicas now: the controller's apply no longer sets them (the API server keeps the last value)
    await waitFor('replicas left to the HPA', async () => {
      const mine = (await deployment('big'))?.metadata.managedFields?.find(
        (m: Json) => m.manager === 'llamastack' && m.operation === 'Apply',
      );
      return mine && !('f:replicas' in (mine.fieldsV1?.['f:spec'] ?? {})) ? true : undefined;
    });
  });

  it('fills an endpoint from a ModelDeployment and regenerates when it changes', async () => {
    await admin.apply({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'qwen', namespace: NS },
      spec: { model: { id: 'Qwen/Qwen2.5-0.5B-Instruct' } },
    } as KubeObject);
    await admin.apply(
      llsd('from-md', {
        distribution: { name: 'remote-vllm' },
        providers: { inference: [{ id: 'qwen', provider: 'vllm', modelDeploymentRef: { name: 'qwen' } }] },
        resources: { models: [{ name: 'Qwen/Qwen2.5-0.5B-Instruct' }] },
      }),
    );
    const waiting = await where('waiting for the endpoint', 'from-md', (o) => o.status?.phase === 'Pending');
    assert.match(
      cond(waiting, 'ConfigGenerated')?.message,
      /spec.providers.inference\[0\].modelDeploymentRef: ModelDeployment qwen has no endpoint yet/,
    );
    const setEndpoint = (service: string) =>
      admin.applyStatus(
        {
          apiVersion: 'kubeairunway.ai/v1alpha1',
          kind: 'ModelDeployment',
          metadata: { name: 'qwen', namespace: NS },
          status: { endpoint: { service, port: 8000 } },
        } as KubeObject,
        { fieldManager: 'test-provider' },
      );
    await setEndpoint('qwen-a');
    const config = async () => (await generated('from-md')).map((c: ConfigMap) => c.data!['config.yaml']!).join('\n');
    await waitFor('config with the endpoint', async () =>
      (await config()).includes('http://qwen-a.llama.svc.cluster.local:8000/v1') ? true : undefined,
    );
    await setEndpoint('qwen-b');
    await waitFor('config with the new endpoint', async () =>
      (await config()).includes('http://qwen-b.llama.svc.cluster.local:8000/v1') ? true : undefined,
    );
    await admin.delete(ModelDeployments, 'qwen', NS);
  });

  it('fills an endpoint from an AIMService once it is Running', async () => {
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMService',
      metadata: { name: 'qwen-aim', namespace: NS },
      spec: { model: { name: 'qwen' } },
    } as KubeObject);
    await admin.apply(
      llsd('from-aim', {
        distribution: { name: 'remote-vllm' },
        providers: { inference: [{ id: 'aim', provider: 'vllm', aimServiceRef: { name: 'qwen-aim' } }] },
      }),
    );
    await where('waiting for the AIMService', 'from-aim', (o) => o.status?.phase === 'Pending');
    await admin.applyStatus(
      {
        apiVersion: 'aim.eai.amd.com/v1alpha1',
        kind: 'AIMService',
        metadata: { name: 'qwen-aim', namespace: NS },
        status: { status: 'Running' },
      } as KubeObject,
      { fieldManager: 'test-aim' },
    );
    const ready = await waitFor('config with the predictor endpoint', async () => {
      const text = (await generated('from-aim')).map((c: ConfigMap) => c.data!['config.yaml']!).join('\n');
      return /base_url: "http:\/\/[a-z0-9-]+-predictor\.llama\.svc\.cluster\.local:80\/v1"/.test(text)
        ? text
        : undefined;
    });
    assert.match(ready, /provider_id: aim/);
  });

  it('an image override (an operator upgrade) changes image and keeps config in one Deployment write, and is recorded', async () => {
    await admin.apply(llsd('upgrade', { distribution: { name: 'starter' } }));
    const before = await where('Ready', 'upgrade', (o) => o.status?.phase === 'Ready');
    assert.equal(before.status?.resolvedDistribution?.image, 'docker.io/llamastack/distribution-starter:0.7.3');
    const d0 = await deployment('upgrade');
    await admin.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'llama-stack-operator-config', namespace: 'modelplane-system' },
      data: { 'image-overrides': 'starter: quay.io/acme/starter:2.0\n' },
    } as KubeObject);
    const after = await where(
      'the new image recorded',
      'upgrade',
      (o) => o.status?.resolvedDistribution?.image === 'quay.io/acme/starter:2.0',
    );
    const d1 = await deployment('upgrade');
    assert.equal(d1!.spec.template.spec.containers[0].image, 'quay.io/acme/starter:2.0');
    assert.equal(d1!.metadata.generation, d0!.metadata.generation + 1);
    assert.equal(volumeOf(d1), volumeOf(d0), 'same config');
    assert.equal(after.status?.distributionConfig?.availableDistributions?.starter, 'quay.io/acme/starter:2.0');
    const events = await admin.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' } as KindRef<KubeObject & Json>, {
      namespace: NS,
    });
    await waitFor('an event saying the image alone changed', async () => {
      const all = await admin.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' } as KindRef<KubeObject & Json>, {
        namespace: NS,
      });
      return all.items.some(
        (e) =>
          e.regarding?.name === 'upgrade' &&
          e.reason === 'DeploymentUpdated' &&
          /now runs quay\.io\/acme\/starter:2\.0 \(was docker\.io\/llamastack\/distribution-starter:0\.7\.3\)/.test(
            e.note,
          ),
      );
    });
    const reasons = new Set(events.items.filter((e) => e.regarding?.name === 'basic').map((e) => e.reason));
    for (const r of ['ConfigGenerated', 'ConfigGenerationFailed', 'SecretResolutionFailed'])
      assert.ok(reasons.has(r), `event ${r} for basic: ${[...reasons]}`);
  });

  it("overrideConfig: the user's ConfigMap is mounted as it is and nothing is generated; an image with providers needs one", async () => {
    await admin.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'my-config', namespace: NS },
      data: { 'config.yaml': 'version: 2\ndistro_name: mine\napis: []\nproviders: {}\n' },
    } as KubeObject);
    await admin.apply(
      llsd('own', { distribution: { image: 'quay.io/me/llama:1' }, overrideConfig: { configMapName: 'my-config' } }),
    );
    const ready = await where('Ready', 'own', (o) => o.status?.phase === 'Ready');
    assert.equal(cond(ready, 'ConfigGenerated'), undefined);
    assert.deepEqual(await generated('own'), []);
    assert.equal(volumeOf(await deployment('own')), 'my-config');
    assert.equal(ready.status?.resolvedDistribution?.configSource, 'override');
    await admin.apply(
      llsd('needs-base', {
        distribution: { image: 'quay.io/me/llama:1' },
        providers: { inference: [{ provider: 'vllm', endpoint: 'http://x/v1' }] },
      }),
    );
    const failed = await where(
      'BaseConfigRequired',
      'needs-base',
      (o) => cond(o, 'ConfigGenerated')?.reason === 'BaseConfigRequired',
    );
    assert.match(
      cond(failed, 'ConfigGenerated')?.message,
      /spec.distribution.image quay.io\/me\/llama:1 has no known base config .*: set spec.overrideConfig/,
    );
    assert.equal(await deployment('needs-base'), undefined);
  });
});

// The llm-d provider on the embedded API server: when a ModelDeployment moves to another provider, the
// llm-d provider deletes everything it applied for it (the Deployment AND the Service and InferencePool beside
// it), not only its upstream object; a foreign Service of the same name is left alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { Deployments, KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { inferencePoolCrd } from '@modelplane/sim/crds/inference-pool';
import { kubeairunwayCrds, ModelDeployments } from '../../../src/apis/kubeairunway/index.ts';
import { registerProviderController } from '../../../src/controllers/kubeairunway/provider/controller.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { providerRules } from '../../../src/controllers/kubeairunway/provider/set.ts';
import { llmdProvider } from '../../../src/controllers/kubeairunway/providers/index.ts';
import { poolName } from '../../../src/controllers/kubeairunway/providers/llmd/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { modelDeployment, selectProvider } from './provider-helpers.ts';

const NS = 'llmd-move';
const Services = kindRef<KubeObject>('v1', 'Service');
const InferencePools = kindRef<KubeObject>('inference.networking.k8s.io/v1', 'InferencePool');

describe('llm-d provider: moving a deployment to another provider', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let admin: KubeClient;
  let mgr: Manager;

  before(async () => {
    cluster = await startTestCluster();
    admin = await KubeClient.create(cluster.server.kubeconfigYaml(), { fieldManager: 'test-user' });
    for (const crd of [...kubeairunwayCrds(), inferencePoolCrd()]) await ensureCrd(admin, crd);
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgr = await Manager.create({
      kubeconfig: cluster.server.kubeconfigYaml(),
      name: 'modelplane',
      logger: new Logger({}, (process.env.TEST_LOG as 'silent') ?? 'silent'),
      gracefulShutdownMs: 2_000,
    });
    await registerProviderController(mgr, llmdProvider as unknown as ProviderDefinition, {
      heartbeatIntervalMs: 500,
      pollMs: 200,
      settleWindowMs: 0,
    });
    await mgr.start();
  });

  after(async () => {
    await mgr?.stop();
    admin?.close();
    await cluster?.stop();
  });

  const released = (name: string) =>
    waitFor(`${name} released by llmd`, async () => {
      const m = await admin.get(ModelDeployments, name, NS);
      return !m.metadata.finalizers?.includes('kubeairunway.ai/llmd-provider') ? m : undefined;
    });

  it('the Deployment, its Service and its InferencePool are deleted, and the llm-d status fields released', async () => {
    await admin.create(modelDeployment('chat', NS));
    await selectProvider(admin, NS, 'chat', 'llmd');
    await waitFor('the llm-d Deployment, Service and InferencePool', async () => {
      const [d, s, p] = await Promise.all([
        admin.getOrUndefined(Deployments, 'chat', NS),
        admin.getOrUndefined(Services, 'chat', NS),
        admin.getOrUndefined(InferencePools, poolName(await admin.get(ModelDeployments, 'chat', NS)), NS),
      ]);
      return d && s && p;
    });
    const pool = poolName(await admin.get(ModelDeployments, 'chat', NS));
    await selectProvider(admin, NS, 'chat', 'dynamo');
    const m = await released('chat');
    assert.equal(await admin.getOrUndefined(Deployments, 'chat', NS), undefined, 'the Deployment is gone');
    await waitFor('the Service gone', async () => (await admin.getOrUndefined(Services, 'chat', NS)) === undefined);
    await waitFor(
      'the InferencePool gone',
      async () => (await admin.getOrUndefined(InferencePools, pool, NS)) === undefined,
    );
    assert.equal(m.status?.phase, undefined, 'no llm-d phase is left behind');
    assert.equal(m.status?.provider?.name, 'dynamo');
  });

  it('a Service of the same name that the deployment does not own is left alone', async () => {
    await admin.create(modelDeployment('other', NS));
    await selectProvider(admin, NS, 'other', 'llmd');
    await waitFor('the llm-d Service', async () => admin.getOrUndefined(Services, 'other', NS));
    // the user takes the Service over: it no longer belongs to the deployment
    await admin.patch(Services, 'other', NS, { metadata: { ownerReferences: null } }, 'merge');
    await selectProvider(admin, NS, 'other', 'kaito');
    await released('other');
    assert.equal(await admin.getOrUndefined(Deployments, 'other', NS), undefined);
    assert.ok(await admin.getOrUndefined(Services, 'other', NS), 'a Service not owned by the deployment stays');
  });

  it('RBAC: the provider may delete the objects it applies beside its Deployment', () => {
    const services = providerRules(llmdProvider).find((r) => r.resources.includes('services'));
    assert.ok(services?.verbs.includes('delete'), JSON.stringify(services));
  });
});

// The provider skeleton on the test cluster (embedded or real API server), over a test CRD whose status the
// test writes: starting without the upstream CRD (no crash loop: ready=false, retry, proceed once it appears), a foreign object of
// the same name (ResourceConflict, left alone), deletion, a stuck upstream finalizer (dropped after the
// shortened timeout with a Warning naming the orphan), a paused deployment that is deleted (cleanup and the
// timeout still apply), privileged overrides and an invalid update past a bypassed webhook (Pending with
// the validation message, nothing reaches the widget), and the deployment moving to another provider
// (cleanup and release of every status field of ours). Ends with ready=false on stop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  type InferenceProviderConfig,
  InferenceProviderConfigs,
  kubeairunwayCrds,
  ModelDeployments,
} from '../../../src/apis/kubeairunway/index.ts';
import { registerProviderController } from '../../../src/controllers/kubeairunway/provider/controller.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { waitFor } from '../../helpers/wait.ts';
import {
  condition,
  eventsFor,
  modelDeployment,
  selectProvider,
  testWidgets,
  Widgets,
  widgetCrd,
} from './provider-helpers.ts';

const NS = 'team';
const TIMEOUT_MS = 2_000;

describe('provider lifecycle on the test cluster (test CRD)', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let admin: KubeClient;
  let mgr: Manager;
  const md = (name: string) => admin.get(ModelDeployments, name, NS);
  const ipc = () => admin.get(InferenceProviderConfigs, 'widgets');
  const ipcCondition = (c: InferenceProviderConfig) =>
    c.status?.conditions?.find((x) => x.type === 'UpstreamCRDInstalled');
  const setWidgetState = (name: string, state: string) =>
    admin.applyStatus(
      { apiVersion: Widgets.apiVersion, kind: Widgets.kind, metadata: { name, namespace: NS }, status: { state } },
      { fieldManager: 'widget-operator' },
    );
  const create = async (name: string, spec = {}) => {
    await admin.create(modelDeployment(name, NS, spec));
    await selectProvider(admin, NS, name, 'widgets');
  };

  before(async () => {
    cluster = await startTestCluster();
    admin = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'test-user' });
    for (const crd of kubeairunwayCrds()) await ensureCrd(admin, crd);
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgr = await Manager.create({
      kubeconfig: cluster.kubeconfig,
      name: 'modelplane',
      logger: new Logger({}, (process.env.TEST_LOG as 'silent') ?? 'silent'),
      gracefulShutdownMs: 2_000,
    });
    await registerProviderController(mgr, testWidgets as ProviderDefinition, {
      heartbeatIntervalMs: 500,
      discoveryRetryMs: 300,
      finalizerTimeoutMs: TIMEOUT_MS,
      pollMs: 200,
    });
    await mgr.start();
  });

  after(async () => {
    await mgr?.stop();
    admin?.close();
    await cluster?.stop();
  });

  it('without the upstream CRD: registered with ready=false and a condition saying why; deployments wait as Pending', async () => {
    const c = await waitFor('the InferenceProviderConfig', async () => {
      const c = await ipc();
      return c.status?.lastHeartbeat ? c : undefined;
    });
    assert.equal(c.status?.ready, false);
    assert.equal(c.status?.version, 'widgets-provider:0.0.1-test');
    assert.equal(ipcCondition(c)?.status, 'False');
    assert.equal(ipcCondition(c)?.reason, 'CRDNotInstalled');
    assert.match(
      ipcCondition(c)!.message!,
      /Widget CRD \(widgets\.test\.modelplane\.io, test\.modelplane\.io\/v1\) is not installed/,
    );
    assert.deepEqual(c.spec, testWidgets.config);

    await create('a');
    const m = await waitFor('a Pending', async () => {
      const m = await md('a');
      return m.status?.phase === 'Pending' ? m : undefined;
    });
    assert.equal(condition(m, 'ResourceCreated')?.reason, 'CRDNotInstalled');
    assert.ok(m.metadata.finalizers?.includes('kubeairunway.ai/widgets-provider'));
  });

  it('the CRD appears: ready=true, and the waiting deployment proceeds without a restart', async () => {
    await ensureCrd(admin, widgetCrd());
    const c = await waitFor('ready=true', async () => {
      const c = await ipc();
      return c.status?.ready === true ? c : undefined;
    });
    assert.equal(ipcCondition(c)?.status, 'True');
    assert.equal(c.status?.upstreamCRDVersion, 'test.modelplane.io/v1');
    const m = await waitFor('a Deploying', async () => {
      const m = await md('a');
      return m.status?.phase === 'Deploying' ? m : undefined;
    });
    assert.equal(m.status?.message, 'Widget created, waiting for pods to be ready');
    const w = await admin.get(Widgets, 'a', NS);
    assert.deepEqual(w.metadata.ownerReferences, [
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        name: 'a',
        uid: m.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await setWidgetState('a', 'Ready');
    const running = await waitFor('a Running', async () => {
      const m = await md('a');
      return m.status?.phase === 'Running' ? m : undefined;
    });
    assert.deepEqual(running.status?.endpoint, {
      service: 'a-svc',
      port: 8000,
      url: 'http://a-svc.team.svc.cluster.local:8000',
    });
    assert.equal(condition(running, 'Ready')?.reason, 'DeploymentReady');
  });

  it('an upstream ready within the settle window: Running in one status write, without a Deploying before it or an event', async () => {
    const since = cluster.auditEntries().length;
    await create('quick');
    await waitFor('the quick widget', async () => (await admin.getOrUndefined(Widgets, 'quick', NS)) ?? undefined);
    await setWidgetState('quick', 'Ready');
    const m = await waitFor('quick Running', async () => {
      const m = await md('quick');
      return m.status?.phase === 'Running' ? m : undefined;
    });
    assert.equal(condition(m, 'Ready')?.reason, 'DeploymentReady');
    const statusWrites = cluster
      .auditEntries()
      .slice(since)
      .filter((e) => e.verb === 'patch' && e.resource === 'modeldeployments/status' && e.name === 'quick');
    // one by the test standing in for the core (the selection), one by the provider
    assert.equal(statusWrites.length, 2, JSON.stringify(statusWrites));
    assert.deepEqual(
      await eventsFor(admin, NS, 'quick'),
      [],
      'ready at its first status write: no event repeats the status',
    );
  });

  it('a foreign object of the same name: ResourceConflict, left untouched; once it is gone the deployment creates its own', async () => {
    const foreign: KubeObject = await admin.create<KubeObject>({
      apiVersion: Widgets.apiVersion,
      kind: Widgets.kind,
      metadata: { name: 'b', namespace: NS },
      spec: { owner: 'someone else' },
    });
    await create('b');
    const m = await waitFor('b Failed', async () => {
      const m = await md('b');
      return m.status?.phase === 'Failed' ? m : undefined;
    });
    assert.equal(m.status?.message, 'resource team/b exists but is not managed by this ModelDeployment');
    assert.equal(condition(m, 'ResourceCreated')?.status, 'False');
    assert.equal(condition(m, 'ResourceCreated')?.reason, 'ResourceConflict');
    await sleep(300);
    const still = await admin.get(Widgets, 'b', NS);
    assert.equal(
      still.metadata.resourceVersion,
      foreign.metadata.resourceVersion,
      'the foreign object was not written',
    );
    assert.deepEqual(still.spec, { owner: 'someone else' });

    await admin.delete(Widgets, 'b', NS);
    const own = await waitFor("b's own widget", async () => {
      const w = await admin.getOrUndefined(Widgets, 'b', NS);
      return w?.metadata.ownerReferences?.[0]?.uid === m.metadata.uid ? w : undefined;
    });
    assert.equal((own.spec as { model: string }).model, 'phi-3-mini');
    await waitFor('b Deploying', async () => (await md('b')).status?.phase === 'Deploying');
  });

  it('deleting a deployment deletes its upstream object, then drops the finalizer', async () => {
    await admin.delete(ModelDeployments, 'b', NS);
    await waitFor('b gone', async () => (await admin.getOrUndefined(ModelDeployments, 'b', NS)) === undefined);
    assert.equal(await admin.getOrUndefined(Widgets, 'b', NS), undefined);
  });

  it('an upstream finalizer that never clears: the finalizer is dropped after the timeout, with a Warning naming the orphan', async () => {
    await admin.patch(Widgets, 'a', NS, { metadata: { finalizers: ['test.modelplane.io/stuck'] } }, 'merge');
    const started = Date.now();
    await admin.delete(ModelDeployments, 'a', NS);
    const terminating = await waitFor('a Terminating', async () => {
      const m = await admin.getOrUndefined(ModelDeployments, 'a', NS);
      return m?.status?.phase === 'Terminating' ? m : undefined;
    });
    assert.match(terminating.status!.message!, /Widget team\/a/);
    await waitFor('a gone', async () => (await admin.getOrUndefined(ModelDeployments, 'a', NS)) === undefined, {
      timeoutMs: 15_000,
    });
    assert.ok(
      Date.now() - started >= TIMEOUT_MS - 1_000,
      `the finalizer was held for the timeout (${Date.now() - started} ms)`,
    );
    const [ev] = await waitFor('the FinalizerTimeout event', async () => {
      const evs = await eventsFor(admin, NS, 'a', 'FinalizerTimeout');
      return evs.length > 0 ? evs : undefined;
    });
    assert.equal(ev!.type, 'Warning');
    assert.match(
      ev!.note ?? '',
      /cleanup of Widget team\/a did not finish within 2s: removing finalizer kubeairunway\.ai\/widgets-provider anyway/,
    );
    assert.match(ev!.note ?? '', /orphaned/);
    const orphan = await admin.get(Widgets, 'a', NS);
    assert.ok(orphan.metadata.deletionTimestamp, 'the widget is still there, stuck on its own finalizer');
    await admin.patch(Widgets, 'a', NS, { metadata: { finalizers: null } }, 'merge');
  });

  it('a paused deployment still finishes deleting: cleanup runs and the finalizer timeout applies', async () => {
    await create('paused', {});
    await waitFor('the paused widget', () => admin.getOrUndefined(Widgets, 'paused', NS));
    await admin.patch(Widgets, 'paused', NS, { metadata: { finalizers: ['test.modelplane.io/stuck'] } }, 'merge');
    await admin.patch(
      ModelDeployments,
      'paused',
      NS,
      { metadata: { annotations: { 'kubeairunway.ai/reconcile-paused': 'true' } } },
      'merge',
    );
    const started = Date.now();
    await admin.delete(ModelDeployments, 'paused', NS);
    await waitFor(
      'the widget asked to go',
      async () => (await admin.get(Widgets, 'paused', NS)).metadata.deletionTimestamp !== undefined,
    );
    await waitFor(
      'paused gone',
      async () => (await admin.getOrUndefined(ModelDeployments, 'paused', NS)) === undefined,
      { timeoutMs: 15_000 },
    );
    assert.ok(
      Date.now() - started >= TIMEOUT_MS - 1_000,
      `the finalizer was held for the timeout (${Date.now() - started} ms)`,
    );
    const evs = await waitFor('the FinalizerTimeout event', async () => {
      const evs = await eventsFor(admin, NS, 'paused', 'FinalizerTimeout');
      return evs.length > 0 ? evs : undefined;
    });
    assert.match(evs[0]!.note ?? '', /cleanup of Widget team\/paused did not finish within 2s/);
    await admin.patch(Widgets, 'paused', NS, { metadata: { finalizers: null } }, 'merge');
  });

  it('privileged overrides past a bypassed webhook: Pending with the validation message naming the path, nothing built; fixing them recovers', async () => {
    await create('d', { provider: { overrides: { spec: { HostNetwork: true } } } });
    const m = await waitFor('d Pending', async () => {
      const m = await md('d');
      return m.status?.phase === 'Pending' ? m : undefined;
    });
    assert.equal(
      m.status?.message,
      'spec.provider.overrides.spec.HostNetwork: overriding "HostNetwork" is not allowed for security reasons',
    );
    assert.equal(condition(m, 'Ready')?.reason, 'ValidationFailed');
    assert.equal(await admin.getOrUndefined(Widgets, 'd', NS), undefined, 'nothing was built');
    await admin.patch(
      ModelDeployments,
      'd',
      NS,
      { spec: { provider: { overrides: { spec: { HostNetwork: null, hostNetwork: true } } } } },
      'merge',
    );
    await waitFor('d Pending on the new spelling', async () =>
      (await md('d')).status?.message?.includes('"hostNetwork"'),
    );
    await admin.patch(
      ModelDeployments,
      'd',
      NS,
      { spec: { provider: { overrides: { spec: { hostNetwork: null, color: 'blue' } } } } },
      'merge',
    );
    const w = await waitFor("d's widget", () => admin.getOrUndefined(Widgets, 'd', NS));
    assert.equal((w.spec as { color: string }).color, 'blue');
  });

  it('an invalid update after the provider was chosen (webhook down): Pending with the validation message, the widget untouched; fixing it recovers', async () => {
    await setWidgetState('d', 'Ready');
    await waitFor('d Running', async () => (await md('d')).status?.phase === 'Running');
    const before = await admin.get(Widgets, 'd', NS);
    await admin.patch(ModelDeployments, 'd', NS, { spec: { scaling: { replicas: 40 } } }, 'merge');
    const m = await waitFor('d Pending', async () => {
      const m = await md('d');
      return m.status?.phase === 'Pending' ? m : undefined;
    });
    assert.equal(m.status?.message, 'spec.scaling.replicas 40 exceeds maximum allowed (32)');
    assert.equal(condition(m, 'Ready')?.status, 'False');
    assert.equal(condition(m, 'Ready')?.reason, 'ValidationFailed');
    assert.equal(m.status?.observedGeneration, m.metadata.generation, 'the status says which generation it judged');
    await sleep(300);
    const after = await admin.get(Widgets, 'd', NS);
    assert.deepEqual(after.spec, before.spec, 'nothing invalid reached the widget');
    assert.equal(
      (await md('d')).status?.phase,
      'Pending',
      'and it stays Pending: the provider does not write Running over it',
    );
    await admin.patch(ModelDeployments, 'd', NS, { spec: { scaling: { replicas: 3 } } }, 'merge');
    await waitFor(
      'the widget at 3 replicas',
      async () => ((await admin.get(Widgets, 'd', NS)).spec as { replicas: number }).replicas === 3,
    );
    await waitFor('d Running again', async () => (await md('d')).status?.phase === 'Running');
  });

  it('moved to another provider: the widget is deleted, our finalizer and every status field of ours removed', async () => {
    await setWidgetState('d', 'Ready');
    await waitFor('d Running', async () => (await md('d')).status?.phase === 'Running');
    await selectProvider(admin, NS, 'd', 'dynamo');
    const m = await waitFor('d released', async () => {
      const m = await md('d');
      return !m.metadata.finalizers?.includes('kubeairunway.ai/widgets-provider') ? m : undefined;
    });
    assert.equal(await admin.getOrUndefined(Widgets, 'd', NS), undefined);
    assert.equal(m.status?.phase, undefined, 'our phase is gone');
    assert.deepEqual(
      m.status?.provider,
      { name: 'dynamo', selectedReason: 'test selection' },
      "the core's fields stay",
    );
    assert.deepEqual(
      m.status?.conditions?.map((c) => c.type),
      ['ProviderSelected'],
    );
    const [ev] = await eventsFor(admin, NS, 'd', 'ProviderChanged');
    assert.match(ev?.note ?? '', /provider\.name changed from widgets to dynamo: deleting Widget team\/d/);
  });

  it('stopping the provider reports ready=false', async () => {
    const before = await ipc();
    assert.equal(before.status?.ready, true);
    assert.ok(Date.now() - Date.parse(before.status!.lastHeartbeat!) < 3_000, 'the heartbeat is fresh');
    await mgr.stop();
    assert.equal((await ipc()).status?.ready, false);
  });
});

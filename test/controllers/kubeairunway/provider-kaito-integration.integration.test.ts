// The provider skeleton end to end on the dev cluster, driving the simulated KAITO operator, running under
// the ServiceAccount and ClusterRole generated from its own declared RBAC rules, and checked with the real
// kubectl: Running reached; the status split between the core's and the provider's field managers; a
// kubectl edit-style change of a managed field reverted; pause and unpause; a config change in place; an
// identity change recreating the Workspace with a Warning naming the field; an incompatible deployment; the
// unknown-override warning once per generation; heartbeat, metrics and ready=false on stop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  InferenceProviderConfigs,
  type ModelDeployment,
  ModelDeployments,
} from '../../../src/apis/kubeairunway/index.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { providerControllerSet } from '../../../src/controllers/kubeairunway/provider/set.ts';
import { startOperator } from '../../../src/controllers/operator.ts';
import { rbacObjects } from '../../../src/controllers/rbac.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';
import { condition, eventsFor, selectProvider, testKaito, Workspaces } from './provider-helpers.ts';

const NS = 'ml';
const A100 = 'Standard_NC24ads_A100_v4';

const MD_YAML = `apiVersion: kubeairunway.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: llama
  namespace: ${NS}
  labels:
    kubeairunway.ai/team: research
    app: chat
spec:
  model:
    id: phi-3-mini-4k-instruct
  engine:
    type: vllm
  resources:
    gpu:
      count: 1
  scaling:
    replicas: 1
`;

describe('provider skeleton on the dev cluster with the simulated KAITO', { timeout: 90_000 }, () => {
  let cluster: DevTestCluster;
  let admin: KubeClient;
  let provider: Manager;
  const kubectl = (args: string[], input?: string) => cluster.k(args, input);
  const md = (name = 'llama') => admin.get(ModelDeployments, name, NS);
  const ws = (name = 'llama') => admin.getOrUndefined(Workspaces, name, NS);
  const instanceType = (w: KubeObject | undefined) =>
    (w?.resource as { instanceType?: string } | undefined)?.instanceType;
  const phase = (name: string, want: string) =>
    waitFor(`${name} ${want}`, async () => {
      const m = await md(name);
      return m.status?.phase === want ? m : undefined;
    });

  before(async () => {
    const log = new Logger({}, 'silent');
    cluster = await startDevTestCluster({ log, namespaces: [NS] });
    admin = cluster.admin;
    const set = providerControllerSet(testKaito as ProviderDefinition, { heartbeatIntervalMs: 1_000, pollMs: 300 });
    for (const obj of rbacObjects({ name: set.name, rules: set.rules }, 'modelplane-system'))
      await admin.apply(obj as KubeObject, { fieldManager: 'test-rbac' });
    const kubeconfig = await cluster.serviceAccountKubeconfig('modelplane-system', `modelplane-${set.name}`);
    provider = await startOperator({ kubeconfig, sets: [set], log, operatorNamespace: 'aim-system' });
  });

  after(async () => {
    await provider?.stop();
    await cluster?.stop();
  });

  it('a ModelDeployment assigned to the provider reaches Running through the simulated KAITO', async () => {
    await kubectl(['apply', '-f', '-'], MD_YAML);
    await selectProvider(admin, NS, 'llama', 'kaito');
    const m = await phase('llama', 'Running');
    assert.deepEqual(m.metadata.finalizers, ['kubeairunway.ai/kaito-provider']);
    assert.deepEqual(m.status?.provider, {
      name: 'kaito',
      selectedReason: 'test selection',
      resourceName: 'llama',
      resourceKind: 'Workspace',
    });
    assert.deepEqual(m.status?.endpoint, { service: 'llama', port: 80, url: 'http://llama.ml.svc.cluster.local' });
    assert.deepEqual(m.status?.replicas, { desired: 1, ready: 1 });
    for (const [type, reason] of [
      ['ProviderCompatible', 'CompatibilityVerified'],
      ['ResourceCreated', 'ResourceCreated'],
      ['Ready', 'DeploymentReady'],
    ]) {
      assert.equal(condition(m, type!)?.status, 'True', type);
      assert.equal(condition(m, type!)?.reason, reason, type);
    }
    const w = (await ws())!;
    assert.deepEqual(w.metadata.labels, {
      'kubeairunway.ai/team': 'research',
      'kubeairunway.ai/model-deployment': 'llama',
      'kubeairunway.ai/managed-by': 'kubeairunway',
    });
    assert.deepEqual(w.metadata.ownerReferences, [
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        name: 'llama',
        uid: m.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(instanceType(w), A100);
  });

  it("kubectl --show-managed-fields shows docs/kubeairunway.md's status ownership split between core and provider", async () => {
    const m = JSON.parse(
      await kubectl(['get', 'md', 'llama', '-n', NS, '-o', 'json', '--show-managed-fields']),
    ) as ModelDeployment;
    const entry = (manager: string) =>
      m.metadata.managedFields?.find(
        (e) => e.manager === manager && e.subresource === 'status' && e.operation === 'Apply',
      );
    const fields = (manager: string) =>
      (entry(manager)?.fieldsV1?.['f:status'] ?? {}) as Record<string, Record<string, unknown>>;
    const core = fields('kubeairunway-core');
    const prov = fields('kaito-provider');
    assert.deepEqual(Object.keys(core['f:provider'] ?? {}).sort(), ['f:name', 'f:selectedReason']);
    assert.deepEqual(
      Object.keys(core['f:conditions'] ?? {}).filter((k) => k !== '.'),
      ['k:{"type":"ProviderSelected"}'],
    );
    assert.equal(core['f:phase'], undefined);
    assert.deepEqual(Object.keys(prov['f:provider'] ?? {}).sort(), ['f:resourceKind', 'f:resourceName']);
    for (const f of ['f:phase', 'f:message', 'f:endpoint', 'f:replicas'])
      assert.ok(prov[f], `kaito-provider owns ${f}`);
    assert.deepEqual(
      Object.keys(prov['f:conditions'] ?? {})
        .filter((k) => k !== '.')
        .sort(),
      ['k:{"type":"ProviderCompatible"}', 'k:{"type":"Ready"}', 'k:{"type":"ResourceCreated"}'],
    );
  });

  it('a kubectl edit-style change of a managed field is reverted; fields nobody manages stay', async () => {
    await kubectl([
      'patch',
      'workspace',
      'llama',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({
        resource: { instanceType: 'Standard_NC6s_v3' },
        metadata: { labels: { 'kubeairunway.ai/managed-by': 'someone', extra: 'keep' } },
      }),
    ]);
    const w = await waitFor('the drift reverted', async () => {
      const w = await ws();
      return instanceType(w) === A100 && w?.metadata.labels?.['kubeairunway.ai/managed-by'] === 'kubeairunway'
        ? w
        : undefined;
    });
    assert.equal(w.metadata.labels?.extra, 'keep', 'a label the provider does not manage is not its business');
  });

  it('pause stops reconciliation; unpausing reverts the drift', async () => {
    await kubectl(['annotate', 'md', 'llama', '-n', NS, 'kubeairunway.ai/reconcile-paused=true']);
    await sleep(500);
    await kubectl([
      'patch',
      'workspace',
      'llama',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ resource: { instanceType: 'Standard_NC6s_v3' } }),
    ]);
    await sleep(1_500);
    assert.equal(instanceType(await ws()), 'Standard_NC6s_v3', 'left alone while paused');
    await kubectl(['annotate', 'md', 'llama', '-n', NS, 'kubeairunway.ai/reconcile-paused-']);
    await waitFor('reverted after unpause', async () => instanceType(await ws()) === A100);
  });

  it('a config field (scaling.replicas) updates the Workspace in place', async () => {
    const uid = (await ws())!.metadata.uid;
    await kubectl([
      'patch',
      'md',
      'llama',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { scaling: { replicas: 2 } } }),
    ]);
    const w = await waitFor('count 2', async () => {
      const w = await ws();
      return (w?.resource as { count?: number } | undefined)?.count === 2 ? w : undefined;
    });
    assert.equal(w.metadata.uid, uid, 'same object');
    await waitFor('replicas.desired 2', async () => (await md()).status?.replicas?.desired === 2);
    assert.deepEqual(await eventsFor(admin, NS, 'llama', 'RecreatingResource'), []);
  });

  it('an identity field (model.id) deletes and recreates the Workspace, with a Warning naming the field', async () => {
    const old = (await ws())!;
    await kubectl([
      'patch',
      'md',
      'llama',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { model: { id: 'mistral-7b' } } }),
    ]);
    const w = await waitFor('a new Workspace', async () => {
      const w = await ws();
      return w && w.metadata.uid !== old.metadata.uid && !w.metadata.deletionTimestamp ? w : undefined;
    });
    assert.equal((w.inference as { preset: { name: string } }).preset.name, 'mistral-7b');
    const events = await eventsFor(admin, NS, 'llama', 'RecreatingResource');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'Warning');
    assert.equal(
      events[0]!.note,
      'model.id changed from phi-3-mini-4k-instruct to mistral-7b: deleting and recreating Workspace ml/llama',
    );
    assert.equal(events[0]!.series, undefined, 'announced once');
    await phase('llama', 'Running');
  });

  it("an incompatible deployment: ProviderCompatible=False with docs/kubeairunway.md's message, Failed, nothing built", async () => {
    await kubectl(
      ['apply', '-f', '-'],
      MD_YAML.replace('name: llama', 'name: sg').replace('type: vllm', 'type: sglang'),
    );
    await selectProvider(admin, NS, 'sg', 'kaito');
    const m = await phase('sg', 'Failed');
    assert.equal(m.status?.message, 'KAITO does not support sglang engine');
    assert.equal(condition(m, 'ProviderCompatible')?.status, 'False');
    assert.equal(condition(m, 'ProviderCompatible')?.reason, 'IncompatibleConfiguration');
    assert.equal(await ws('sg'), undefined);
    const [ev] = await waitFor('the Warning', async () => {
      const evs = await eventsFor(admin, NS, 'sg', 'IncompatibleConfiguration');
      return evs.length ? evs : undefined;
    });
    assert.equal(ev!.type, 'Warning');
  });

  it('replicas: 0 stored while the webhook was down: refused as incompatible, and the Workspace built before keeps serving and being reported', async () => {
    const before = await phase('llama', 'Running');
    const count = (w: KubeObject | undefined) => (w?.resource as { count?: number } | undefined)?.count;
    const countBefore = count(await ws());
    await kubectl(['patch', 'md', 'llama', '-n', NS, '--type', 'merge', '-p', '{"spec":{"scaling":{"replicas":0}}}']);
    const refused = await phase('llama', 'Failed');
    assert.equal(
      refused.status?.message,
      'KAITO cannot run 0 replicas (it always runs at least one serving pod): set spec.scaling.replicas to 1 or more, or use a provider that runs 0 replicas',
    );
    assert.deepEqual(
      [condition(refused, 'ProviderCompatible')?.status, condition(refused, 'Ready')?.status],
      ['False', 'False'],
    );
    // what serves is still said: the resource, its ready pods and its endpoint (a gateway routes by them)
    assert.deepEqual(refused.status?.provider?.resourceName, 'llama');
    assert.deepEqual(refused.status?.replicas, before.status?.replicas);
    assert.deepEqual(refused.status?.endpoint, before.status?.endpoint);
    assert.equal(condition(refused, 'ResourceCreated')?.status, 'True');
    assert.equal(count(await ws()), countBefore, 'the Workspace keeps its last valid count');
    await kubectl(['patch', 'md', 'llama', '-n', NS, '--type', 'merge', '-p', '{"spec":{"scaling":{"replicas":1}}}']);
    await phase('llama', 'Running');
  });

  it('unknown overrides: a Warning once per generation, and the key is not applied', async () => {
    const overridden = MD_YAML.replace('name: llama', 'name: ov').replace(
      '  scaling:',
      '  provider:\n    overrides:\n      resource:\n        preferredNodes: [nvidia-node-2]\n  scaling:',
    );
    await kubectl(['apply', '-f', '-'], overridden);
    await selectProvider(admin, NS, 'ov', 'kaito');
    const w = await waitFor("ov's Workspace", () => ws('ov'));
    assert.equal((w.resource as { preferredNodes?: string[] }).preferredNodes, undefined);
    const occurrences = async () =>
      (await eventsFor(admin, NS, 'ov', 'UnknownOverride')).reduce((n, e) => n + (e.series?.count ?? 1), 0);
    await waitFor('the first warning', async () => (await occurrences()) === 1);
    // more reconciles of the same generation: drift, then a label change
    await kubectl([
      'patch',
      'workspace',
      'ov',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ resource: { instanceType: 'Standard_NC6s_v3' } }),
    ]);
    await waitFor('drift reverted', async () => instanceType(await ws('ov')) === A100);
    await kubectl(['label', 'md', 'ov', '-n', NS, 'kubeairunway.ai/x=y']);
    await waitFor('label propagated', async () => (await ws('ov'))?.metadata.labels?.['kubeairunway.ai/x'] === 'y');
    const [ev] = await eventsFor(admin, NS, 'ov', 'UnknownOverride');
    assert.equal(ev!.note, 'spec.provider.overrides.resource: unknown override for provider kaito; it is ignored');
    assert.equal(await occurrences(), 1, 'not repeated within a generation');
    await kubectl([
      'patch',
      'md',
      'ov',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { scaling: { replicas: 2 } } }),
    ]);
    await waitFor('a second warning for the new generation', async () => (await occurrences()) === 2);
  });

  it('heartbeat fresh and metrics exported while running; ready=false once the provider stops', async () => {
    const ipc = await admin.get(InferenceProviderConfigs, 'kaito');
    assert.equal(ipc.status?.ready, true);
    assert.equal(ipc.status?.version, 'kaito-provider:0.0.1-test');
    assert.ok(
      Date.now() - Date.parse(ipc.status!.lastHeartbeat!) < 3_000,
      `fresh heartbeat (${ipc.status?.lastHeartbeat})`,
    );
    const text = await provider.metrics.text();
    assert.match(text, /kubeairunway_deployment_status\{provider="kaito",phase="Running"\} [12]/);
    assert.match(text, /kubeairunway_deployment_status\{provider="kaito",phase="Failed"\} 1/);
    // sg's sglang and llama's replicas: 0
    assert.match(
      text,
      /kubeairunway_reconciliation_errors_total\{provider="kaito",error_type="IncompatibleConfiguration"\} 2/,
    );
    await provider.stop();
    const stopped = await admin.get(InferenceProviderConfigs, 'kaito');
    assert.equal(stopped.status?.ready, false);
  });
});

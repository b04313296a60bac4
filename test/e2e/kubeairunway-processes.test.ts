// KubeAIRunway end to end as a cluster runs it: the core and each provider are separate `modelplane` processes,
// each authenticated as its own ServiceAccount and authorised only by its generated RBAC, on the embedded
// cluster with the KAITO / Dynamo / KubeRay / KServe simulators. Shows docs/kubeairunway.md's flows: selection → Running on
// three providers and on AIM, the status ownership split in managedFields, drift reverted, pause, identity
// recreation versus in-place config changes, the finalizer timeout when deletes are refused, privileged
// overrides refused, and no Secret ever read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FaultInjection, startFaultInjection } from '@modelplane/apiserver/testing';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { parseAllDocuments } from 'yaml';
import { ModelDeployments } from '../../src/apis/kubeairunway/index.ts';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { kubeairunwayCoreSet } from '../../src/controllers/kubeairunway/core/index.ts';
import { PROVIDER_SETS } from '../../src/controllers/sets.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { type OperatorProcess, routedCredentials, startOperatorProcess } from '../helpers/operator-process.ts';
import { type WaitOptions, waitFor } from '../helpers/wait.ts';

const NS = 'quickstart';
const Workspaces = kindRef('kaito.sh/v1beta1', 'Workspace');
const DGDs = kindRef('nvidia.com/v1alpha1', 'DynamoGraphDeployment');
const FINALIZER_TIMEOUT_S = 3;

// separate processes behind watches: give each step more time than an in-process controller needs
const PROCESS_WAIT: WaitOptions = { timeoutMs: 45_000, intervalMs: 150 };

describe('KubeAIRunway: core and providers as separate processes under their own RBAC', { timeout: 300_000 }, () => {
  let cluster: DevTestCluster;
  /** the processes' requests go through it (the fault proxy on the real backend) */
  let injection: FaultInjection;
  let admin: KubeClient;
  const procs: OperatorProcess[] = [];
  const kubectl = (args: string[], input?: string) => cluster.k(args, input);
  const md = (name: string) => admin.get(ModelDeployments, name, NS);
  const running = (name: string) =>
    waitFor(
      `${name} Running`,
      async () => ((await md(name)).status?.phase === 'Running' ? md(name) : undefined),
      PROCESS_WAIT,
    );
  const userOf = (set: string) => procs.find((p) => p.user.endsWith(`modelplane-${set}`))!.user;

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), namespaces: [NS] });
    admin = cluster.admin;
    injection = await startFaultInjection(cluster.dev.server);
    const credentials = routedCredentials(cluster, (k) => injection.route(k));
    const started = await Promise.allSettled([
      startOperatorProcess(credentials, admin, kubeairunwayCoreSet()),
      startOperatorProcess(credentials, admin, aimControllerSet()),
      ...PROVIDER_SETS.map((set) =>
        startOperatorProcess(credentials, admin, set, {
          command: 'provider',
          extraArgs: ['--finalizer-timeout', String(FINALIZER_TIMEOUT_S)],
        }),
      ),
    ]);
    // the ones that did start are stopped by after() even when another failed to (else they keep this file's
    // process, and the whole test run, alive)
    for (const r of started) if (r.status === 'fulfilled') procs.push(r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await injection?.stop();
    await cluster?.stop();
  });

  it('the quickstart flows reach Running on three providers, and amd.com/gpu on AIM', async () => {
    for (const f of ['40-modeldeployment-cpu.yaml', '41-modeldeployment-1gpu.yaml', '42-modeldeployment-2gpu.yaml']) {
      for (const d of parseAllDocuments(readFileSync(`examples/quickstart/${f}`, 'utf8')))
        await admin.apply(d.toJS() as KubeObject);
    }
    await admin.apply({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'qwen-amd', namespace: NS },
      spec: {
        model: { id: 'Qwen/Qwen3-8B' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
      },
    } as KubeObject);
    const want: Record<string, [string, string]> = {
      'gemma-cpu': ['kaito', 'Workspace'],
      'llama-1gpu': ['dynamo', 'DynamoGraphDeployment'],
      'qwen-2gpu': ['kuberay', 'RayService'],
      'qwen-amd': ['aim', 'AIMService'],
    };
    for (const [name, [provider, kind]] of Object.entries(want)) {
      const m = await running(name);
      assert.equal(m.status?.provider?.name, provider, name);
      assert.equal(m.status?.provider?.resourceKind, kind, name);
      assert.equal(m.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True', name);
    }
    const table = await kubectl(['get', 'md', '-n', NS]);
    assert.match(table, /gemma-cpu\s+Running\s+kaito\s+llamacpp\s+True/);
  });

  it('kubectl get md -o yaml shows the status ownership split of docs/kubeairunway.md table', async () => {
    const out = JSON.parse(await kubectl(['get', 'md', '-n', NS, 'gemma-cpu', '-o', 'json', '--show-managed-fields']));
    const status = (manager: string) =>
      JSON.stringify(
        out.metadata.managedFields.find(
          (m: { manager: string; subresource?: string }) => m.manager === manager && m.subresource === 'status',
        )?.fieldsV1 ?? {},
      );
    const core = status('kubeairunway-core');
    const kaito = status('kaito-provider');
    assert.match(core, /"f:provider":\{[^}]*"f:name"/);
    assert.match(core, /"f:selectedReason"/);
    assert.match(core, /ProviderSelected/);
    assert.doesNotMatch(core, /f:phase|f:replicas|f:endpoint|f:resourceName/);
    for (const f of [
      'f:phase',
      'f:replicas',
      'f:endpoint',
      'f:resourceName',
      'f:resourceKind',
      'ProviderCompatible',
      'ResourceCreated',
      '\\\\"type\\\\":\\\\"Ready',
    ])
      assert.match(kaito, new RegExp(f), f);
    assert.doesNotMatch(kaito, /f:selectedReason|ProviderSelected/);
  });

  it('a kubectl edit of the Workspace is reverted', async () => {
    const before = await admin.get(Workspaces, 'gemma-cpu', NS);
    const count = (before as { resource?: { count?: number } }).resource?.count;
    await kubectl(['patch', 'workspace', 'gemma-cpu', '-n', NS, '--type', 'merge', '-p', '{"resource":{"count":7}}']);
    await waitFor(
      'the edit to be reverted',
      async () =>
        ((await admin.get(Workspaces, 'gemma-cpu', NS)) as { resource?: { count?: number } }).resource?.count === count,
      PROCESS_WAIT,
    );
  });

  it('pause stops reconciliation; unpausing converges', async () => {
    await kubectl(['annotate', 'md', '-n', NS, 'gemma-cpu', 'kubeairunway.ai/reconcile-paused=true']);
    await kubectl(['patch', 'workspace', 'gemma-cpu', '-n', NS, '--type', 'merge', '-p', '{"resource":{"count":5}}']);
    await sleep(2_000);
    assert.equal(
      ((await admin.get(Workspaces, 'gemma-cpu', NS)) as { resource?: { count?: number } }).resource?.count,
      5,
      'paused: the edit stays',
    );
    await kubectl(['annotate', 'md', '-n', NS, 'gemma-cpu', 'kubeairunway.ai/reconcile-paused-']);
    await waitFor(
      'drift reverted after unpause',
      async () =>
        ((await admin.get(Workspaces, 'gemma-cpu', NS)) as { resource?: { count?: number } }).resource?.count === 1,
      PROCESS_WAIT,
    );
    await running('gemma-cpu');
  });

  it('a replicas change updates in place; an identity change recreates with a Warning naming the field', async () => {
    const dgd = await admin.get(DGDs, 'llama-1gpu', NS);
    await admin.patch(ModelDeployments, 'llama-1gpu', NS, { spec: { scaling: { replicas: 2 } } }, 'merge');
    await waitFor(
      'the worker scaled in place',
      async () => {
        const now = await admin.get(DGDs, 'llama-1gpu', NS);
        const replicas = (now.spec as { services?: Record<string, { replicas?: number; componentType?: string }> })
          .services;
        return (
          Object.values(replicas ?? {}).some((s) => s.componentType === 'worker' && s.replicas === 2) &&
          now.metadata.uid === dgd.metadata.uid
        );
      },
      PROCESS_WAIT,
    );
    await admin.patch(
      ModelDeployments,
      'llama-1gpu',
      NS,
      { spec: { model: { id: 'meta-llama/Llama-3.2-3B-Instruct' } } },
      'merge',
    );
    const recreated = await waitFor(
      'a new DynamoGraphDeployment',
      async () => {
        const now = await admin.get(DGDs, 'llama-1gpu', NS);
        return now.metadata.uid !== dgd.metadata.uid ? now : undefined;
      },
      PROCESS_WAIT,
    );
    assert.ok(recreated);
    const events = await kubectl([
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'involvedObject.name=llama-1gpu,type=Warning',
      '-o',
      'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
    ]);
    assert.match(events, /model\.id/);
    await running('llama-1gpu');
  });

  it('privileged overrides never reach a provider resource', async () => {
    await admin.apply({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'sneaky', namespace: NS },
      spec: {
        model: { id: 'Qwen/Qwen3-8B' },
        engine: { type: 'sglang' },
        resources: { gpu: { count: 1 } },
        provider: {
          name: 'dynamo',
          overrides: { spec: { services: { VllmWorker: { extraPodSpec: { hostNetwork: true } } } } },
        },
      },
    } as KubeObject);
    const m = await waitFor(
      'sneaky to be refused',
      async () => {
        const s = await md('sneaky');
        return s.status?.phase === 'Failed' || s.status?.phase === 'Pending' ? s : undefined;
      },
      PROCESS_WAIT,
    );
    assert.match(
      m.status?.message ?? '',
      /spec\.provider\.overrides\.spec\.services\.VllmWorker\.extraPodSpec\.hostNetwork/,
    );
    assert.equal(await admin.getOrUndefined(DGDs, 'sneaky', NS), undefined);
  });

  it('with deletes of the Workspace refused, the finalizer goes after the timeout with a Warning event', async () => {
    const kaitoUser = userOf('provider-kaito');
    const faults = injection.faults;
    const fault = faults.add({ verbs: ['delete'], resources: ['workspaces'], users: [kaitoUser], error: 500 });
    try {
      await admin.delete(ModelDeployments, 'gemma-cpu', NS);
      await waitFor(
        'the ModelDeployment to be gone',
        async () => (await admin.getOrUndefined(ModelDeployments, 'gemma-cpu', NS)) === undefined,
        { ...PROCESS_WAIT, timeoutMs: (FINALIZER_TIMEOUT_S + 30) * 1000 },
      );
    } finally {
      faults.remove(fault);
    }
    const events = await kubectl([
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'involvedObject.name=gemma-cpu,type=Warning',
      '-o',
      'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
    ]);
    assert.match(events, /FinalizerTimeout/);
    assert.match(events, /Workspace/);
  });

  it('no controller process read a Secret or was refused', () => {
    const users = new Set(procs.map((p) => p.user));
    const mine = cluster.auditEntries().filter((e) => users.has(e.user));
    assert.ok(mine.length > 50);
    assert.deepEqual(
      mine.filter((e) => e.resource.startsWith('secrets')).map((e) => `${e.user} ${e.verb} secrets`),
      [],
    );
    assert.deepEqual(
      mine.filter((e) => e.code === 403).map((e) => `${e.user} ${e.verb} ${e.group}/${e.resource}`),
      [],
    );
  });
});

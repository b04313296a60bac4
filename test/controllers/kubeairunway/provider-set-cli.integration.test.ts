// The provider as a controller set (its name and RBAC rules: nothing on Secrets) and as a command:
// `modelplane provider --help` lists the providers, an unknown name is refused, and a started provider holds
// its own lease, registers its InferenceProviderConfig and serves its metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { Command, CommanderError } from 'commander';
import { InferenceProviderConfigs, kubeairunwayCrds } from '../../../src/apis/kubeairunway/index.ts';
import { providerLeaseName, registerProvider, runProvider } from '../../../src/cli/provider.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { providerControllerSet } from '../../../src/controllers/kubeairunway/provider/set.ts';
import { aimProvider } from '../../../src/controllers/kubeairunway/providers/index.ts';
import { normalizeRules } from '../../../src/controllers/rbac.ts';
import { waitFor } from '../../helpers/wait.ts';
import { testKaito, testWidgets } from './provider-helpers.ts';

const defs = [testKaito, testWidgets] as ProviderDefinition[];

describe('providerControllerSet', () => {
  it('is named provider-<name> and declares exactly what the provider uses', () => {
    const set = providerControllerSet(testKaito as ProviderDefinition);
    assert.equal(set.name, 'provider-kaito');
    assert.match(set.description, /KAITO provider: builds a Workspace \(kaito\.sh\/v1beta1\)/);
    assert.deepEqual(normalizeRules(set.rules), [
      // spec.model.storage: managed PVCs (created once, never deleted: they go with the deployment), the
      // download Job (replaced on a retry) and its log
      {
        apiGroups: [''],
        resources: ['persistentvolumeclaims'],
        verbs: ['get', 'list', 'watch', 'create', 'patch'],
      },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      // its CRD, watched by name: a deletion changes readiness at once, not at the next heartbeat
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      {
        apiGroups: ['kaito.sh'],
        resources: ['workspaces'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: ['kubeairunway.ai'], resources: ['inferenceproviderconfigs'], verbs: ['create', 'patch'] },
      {
        apiGroups: ['kubeairunway.ai'],
        resources: ['inferenceproviderconfigs/status', 'modeldeployments/status'],
        verbs: ['patch'],
      },
      {
        apiGroups: ['kubeairunway.ai'],
        resources: ['modeldeployments'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      { apiGroups: ['kubeairunway.ai'], resources: ['modeldeployments/finalizers'], verbs: ['update'] },
    ]);
  });

  it('a provider that never mounts storage (AIM) may not touch PVCs, Jobs or pods', () => {
    const rules = providerControllerSet(aimProvider as unknown as ProviderDefinition).rules;
    for (const r of rules)
      assert.ok(
        !r.resources.some((res) => ['persistentvolumeclaims', 'jobs', 'pods', 'pods/log'].includes(res)),
        JSON.stringify(r),
      );
  });

  it('never names Secrets (providers pass references on and never read them)', () => {
    for (const def of defs) {
      for (const r of providerControllerSet(def).rules)
        assert.ok(!r.resources.some((res) => res.startsWith('secrets')), `${def.name}: ${JSON.stringify(r)}`);
    }
  });
});

function program(): { cmd: Command; out: () => string } {
  let text = '';
  const cmd = new Command().name('modelplane').exitOverride();
  // wide enough that no help line wraps
  const output = {
    writeOut: (s: string) => (text += s),
    writeErr: (s: string) => (text += s),
    getOutHelpWidth: () => 300,
    getErrHelpWidth: () => 300,
  };
  cmd.configureOutput(output);
  registerProvider(cmd, defs);
  for (const sub of cmd.commands) sub.exitOverride().configureOutput(output);
  return { cmd, out: () => text };
}

describe('modelplane provider', () => {
  it('--help lists the providers and the same flags as modelplane run', async () => {
    const { cmd, out } = program();
    await assert.rejects(
      cmd.parseAsync(['node', 'modelplane', 'provider', '--help']),
      (e: unknown) => e instanceof CommanderError && e.code === 'commander.helpDisplayed',
    );
    const help = out();
    assert.match(help, /Usage: modelplane provider \[options\] <name>/);
    assert.match(help, /choices: "kaito", "widgets"/);
    assert.match(help, /kaito\s+KAITO: builds Workspace \(kaito\.sh\/v1beta1\)/);
    assert.match(help, /widgets\s+Widgets: builds Widget \(test\.modelplane\.io\/v1\)/);
    for (const flag of ['--kubeconfig', '--leader-elect', '--leader-election-namespace', '--http-port', '--http-host'])
      assert.ok(help.includes(flag), flag);
  });

  it('refuses a provider it does not know, naming the choices', async () => {
    const { cmd, out } = program();
    await assert.rejects(
      cmd.parseAsync(['node', 'modelplane', 'provider', 'vllm']),
      (e: unknown) => e instanceof CommanderError && e.code === 'commander.invalidArgument',
    );
    assert.match(
      out(),
      /command-argument value 'vllm' is invalid for argument 'name'\. Allowed choices are kaito, widgets\./,
    );
  });
});

describe('runProvider', { timeout: 30_000 }, () => {
  let cluster: TestCluster;
  let admin: KubeClient;
  let mgr: Manager;

  before(async () => {
    cluster = await startTestCluster();
    admin = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'test-user' });
    for (const crd of kubeairunwayCrds()) await ensureCrd(admin, crd);
  });

  after(async () => {
    await mgr?.stop();
    admin?.close();
    await cluster?.stop();
  });

  it('holds the lease modelplane-provider-<name>, registers, and serves metrics and probes', async () => {
    mgr = await runProvider(testWidgets as ProviderDefinition, {
      kubeconfig: cluster.kubeconfig,
      leaderElect: true,
      leaderElectionNamespace: 'default',
      httpPort: 0,
      httpHost: '127.0.0.1',
      log: new Logger({}, 'silent'),
      controller: { heartbeatIntervalMs: 500 },
    });
    assert.equal(providerLeaseName('widgets'), 'modelplane-provider-widgets');
    const Leases = kindRef<KubeObject & { spec?: { holderIdentity?: string } }>('coordination.k8s.io/v1', 'Lease');
    const lease = await waitFor('the lease', () =>
      admin.getOrUndefined(Leases, 'modelplane-provider-widgets', 'default'),
    );
    assert.ok(lease.spec?.holderIdentity, 'held');
    const ipc = await waitFor('the registration', () => admin.getOrUndefined(InferenceProviderConfigs, 'widgets'));
    assert.deepEqual(ipc.spec, testWidgets.config);
    const metrics = await (await fetch(`${mgr.url}/metrics`)).text();
    assert.match(metrics, /# TYPE kubeairunway_reconciliation_errors_total counter/);
    assert.match(
      metrics,
      /controller_runtime_reconcile_total|controller_runtime_max_concurrent_reconciles\{controller="provider-widgets"\}/,
    );
    assert.equal((await fetch(`${mgr.url}/readyz`)).status, 200);
  });
});

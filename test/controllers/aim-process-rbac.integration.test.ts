// The `aim` controller set as a cluster runs it: its own `modelplane run` process, authenticated as its
// ServiceAccount, authorised only by the generated RBAC. docs/aim.md's routing example converges, and the audit
// log shows the process was never refused (the rules are enough) and touched no Secret but the pull Secret a
// model names (read by name, watched pinned to its name: never listed).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { SIM_REGISTRY_PASSWORD, SIM_REGISTRY_USERNAME } from '@modelplane/sim/registry/server';
import { parseAllDocuments } from 'yaml';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { AIMModels, AIMServices } from '../../src/controllers/aim/shared/kinds.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { type OperatorProcess, startOperatorProcess } from '../helpers/operator-process.ts';
import { waitFor } from '../helpers/wait.ts';

const yamlDocs = (file: string) => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject);

describe('aim controllers as a process under their generated RBAC', { timeout: 120_000 }, () => {
  let cluster: DevTestCluster;
  let admin: KubeClient;
  let proc: OperatorProcess;

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }) });
    admin = cluster.admin;
    proc = await startOperatorProcess(cluster, admin, aimControllerSet());
  });

  after(async () => {
    await proc?.stop();
    await cluster?.stop();
  });

  it('converges docs/aim.md example: /ml/ml-team/conversational-ai', async () => {
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml-team' } });
    for (const f of ['examples/aim/03-aimruntimeconfig-default.yaml'])
      for (const o of yamlDocs(f)) await admin.apply(o);
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMModel',
      metadata: { name: 'qwen-qwen3-32b', namespace: 'ml-team' },
      spec: { image: 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5' },
    } as KubeObject);
    // docs/aim.md's service, with the project label its template needs
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMService',
      metadata: { name: 'qwen-chat', namespace: 'ml-team', labels: { project: 'conversational-ai' } },
      spec: { model: { name: 'qwen-qwen3-32b' } },
    } as KubeObject);
    const svc = await waitFor(
      'ml-team/qwen-chat Running',
      async () => {
        const s = await admin.get(AIMServices, 'qwen-chat', 'ml-team');
        return s.status?.status === 'Running' ? s : undefined;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        detail: async () =>
          `${JSON.stringify((await admin.get(AIMServices, 'qwen-chat', 'ml-team')).status)}\n${proc.output().slice(-3000)}`,
      },
    );
    assert.equal(svc.status?.routing?.path, '/ml/ml-team/conversational-ai');
  });

  it('a model naming a missing pull Secret recovers when it is created: the Secret is watched by name', async () => {
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMModel',
      metadata: { name: 'private', namespace: 'ml-team' },
      spec: { image: 'amdenterpriseai/aim-private-model:0.9.0', imagePullSecrets: [{ name: 'regcred' }] },
    } as KubeObject);
    const authValid = async () =>
      (await admin.get(AIMModels, 'private', 'ml-team')).status?.conditions?.find((c) => c.type === 'AuthValid');
    await waitFor('AuthValid=False (regcred missing)', async () => (await authValid())?.status === 'False');
    const auth = Buffer.from(`${SIM_REGISTRY_USERNAME}:${SIM_REGISTRY_PASSWORD}`).toString('base64');
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'ml-team' },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': JSON.stringify({ auths: { 'docker.io': { auth } } }) },
    } as KubeObject);
    await waitFor('AuthValid=True', async () => (await authValid())?.status === 'True', {
      timeoutMs: 60_000,
      detail: async () => `${JSON.stringify(await authValid())}\n${proc.output().slice(-2000)}`,
    });
    // the model goes: its Secret's watch is closed and recorded
    await admin.delete(AIMModels, 'private', 'ml-team');
    await waitFor('the watch of ml-team/regcred recorded', async () =>
      cluster.auditEntries().some((e) => e.user === proc.user && e.verb === 'watch' && e.resource === 'secrets'),
    );
  });

  it('was never refused and read only the Secret a model names, by name', () => {
    const mine = cluster.auditEntries().filter((e) => e.user === proc.user);
    assert.ok(mine.length > 10, 'the process made requests as its ServiceAccount');
    const refused = mine.filter((e) => e.code === 403);
    assert.deepEqual(
      refused.map((e) => `${e.verb} ${e.group}/${e.resource}`),
      [],
    );
    // read when the registry call needs it, watched pinned to its name; never listed, no other Secret
    assert.deepEqual(
      [
        ...new Set(
          mine.filter((e) => e.resource.startsWith('secrets')).map((e) => `${e.verb} ${e.namespace}/${e.name}`),
        ),
      ].sort(),
      ['get ml-team/regcred', 'watch ml-team/regcred'],
    );
  });
});

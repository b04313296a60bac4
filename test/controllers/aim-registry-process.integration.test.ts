// `modelplane run --controllers aim` reads registries over HTTP with its real client: a model source in front
// of the simulated registry (reached through --registry-mirror, as a mirror of docker.io) lists a private
// repository with a pull secret from the operator namespace, under the generated RBAC. The audit log shows
// the process was never refused and touched exactly that one Secret, with get.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import {
  SIM_REGISTRY_PASSWORD,
  SIM_REGISTRY_USERNAME,
  type SimRegistryServer,
  startSimRegistryServer,
} from '@modelplane/sim/registry/server';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { AIMClusterModelSources, AIMClusterModels } from '../../src/controllers/aim/shared/kinds.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { type OperatorProcess, startOperatorProcess } from '../helpers/operator-process.ts';
import { waitFor } from '../helpers/wait.ts';

const OPERATOR_NS = 'aim-system';

describe('modelplane run: the registry client under the generated RBAC', { timeout: 120_000 }, () => {
  let cluster: DevTestCluster;
  let admin: KubeClient;
  let registry: SimRegistryServer;
  let proc: OperatorProcess;

  before(async () => {
    registry = await startSimRegistryServer();
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), namespaces: [OPERATOR_NS] });
    admin = cluster.admin;
    proc = await startOperatorProcess(cluster, admin, aimControllerSet(), {
      extraArgs: ['--registry-mirror', `docker.io=${registry.url}`, '--registry-timeout', '5'],
      env: { AIM_SYSTEM_NAMESPACE: OPERATOR_NS },
    });
  });

  after(async () => {
    await proc?.stop();
    await cluster?.stop();
    await registry?.close();
  });

  it('lists the private repository with the pull secret and creates its model', async () => {
    const auth = Buffer.from(`${SIM_REGISTRY_USERNAME}:${SIM_REGISTRY_PASSWORD}`).toString('base64');
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hub-creds', namespace: OPERATOR_NS },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': Buffer.from(
          JSON.stringify({ auths: { 'https://index.docker.io/v1/': { auth } } }),
        ).toString('base64'),
      },
    } as never);
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMClusterModelSource',
      metadata: { name: 'private' },
      spec: {
        filters: [{ image: 'amdenterpriseai/aim-private-*' }, { image: 'amdenterpriseai/aim-qwen-qwen3-8b' }],
        imagePullSecrets: [{ name: 'hub-creds' }],
      },
    } as never);
    const source = await waitFor(
      'source private Ready',
      async () => {
        const s = await admin.get(AIMClusterModelSources, 'private');
        return s.status?.status === 'Ready' ? s : undefined;
      },
      {
        timeoutMs: 30_000,
        detail: async () =>
          `${JSON.stringify((await admin.get(AIMClusterModelSources, 'private')).status)}\n${proc.output().slice(-3000)}`,
      },
    );
    assert.equal(source.status?.discoveredModels, 2);
    const images = (await admin.list(AIMClusterModels)).items.map((m) => m.spec.image).sort();
    assert.deepEqual(images, [
      'docker.io/amdenterpriseai/aim-private-model:0.9.0',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
    ]);
    assert.ok(registry.requests.includes('/v2/_catalog'), 'the catalog was read over HTTP');
  });

  it('was never refused and read only the named pull secret, with get', () => {
    const mine = cluster.auditEntries().filter((e) => e.user === proc.user);
    assert.deepEqual(
      mine.filter((e) => e.code === 403).map((e) => `${e.verb} ${e.group}/${e.resource}`),
      [],
    );
    const secretReads = mine.filter((e) => e.resource.startsWith('secrets'));
    assert.ok(secretReads.length > 0);
    assert.deepEqual(
      [...new Set(secretReads.map((e) => `${e.verb} ${e.namespace}/${e.name}`))],
      [`get ${OPERATOR_NS}/hub-creds`],
    );
  });
});

// The core controller alone on a test cluster (embedded or real API server), with KAITO, Dynamo and KubeRay
// registered as their providers would (status written under each provider's field manager), and the helpers
// the core's integration tests share.
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { externalCrds } from '@modelplane/sim/crds';
import {
  type BUILTIN_PROVIDERS,
  kubeairunwayCrds,
  type ModelDeployment,
  ModelDeployments,
} from '../../../src/apis/kubeairunway/index.ts';
import { kubeairunwayCoreSet } from '../../../src/controllers/kubeairunway/core/index.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../../../src/controllers/kubeairunway/providers/index.ts';
import { defaultProviderConfig } from '../../../src/controllers/kubeairunway/selection/index.ts';
import { startOperator } from '../../../src/controllers/operator.ts';
import { waitFor } from '../../helpers/wait.ts';

export const NS = 'default';

export interface CoreCluster {
  cluster: TestCluster;
  admin: KubeClient;
  /** registers provider `name` as its registration does: ready, a fresh heartbeat, the API it builds */
  register(name: (typeof BUILTIN_PROVIDERS)[number]): Promise<void>;
  create(name: string, spec: ModelDeployment['spec'], annotations?: Record<string, string>): Promise<ModelDeployment>;
  get(name: string): Promise<ModelDeployment>;
  /** waits for the core to select a provider for `name` */
  selected(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startCoreCluster(): Promise<CoreCluster> {
  const cluster = await startTestCluster();
  const admin = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'test-user' });
  let mgr: Manager | undefined;
  const register = async (name: (typeof BUILTIN_PROVIDERS)[number]) => {
    const c = admin.withFieldManager(`${name}-provider`);
    await c.apply(defaultProviderConfig(name), { force: true });
    // as a provider's registration does: the API it builds, served or not (the core checks which)
    const upstreamCRDVersion = BUILTIN_PROVIDER_DEFINITIONS[name].upstream.apiVersion;
    await c.applyStatus(
      {
        ...defaultProviderConfig(name),
        status: { ready: true, version: 'test', lastHeartbeat: new Date().toISOString(), upstreamCRDVersion },
      },
      { force: true },
    );
  };
  const get = (name: string) => admin.get(ModelDeployments, name, NS);
  try {
    for (const crd of [...kubeairunwayCrds(), ...externalCrds()]) await ensureCrd(admin, crd);
    for (const p of ['kaito', 'dynamo', 'kuberay'] as const) await register(p);
    mgr = await startOperator({
      kubeconfig: cluster.kubeconfig,
      sets: [kubeairunwayCoreSet()],
      operatorNamespace: 'aim-system',
      log: new Logger({ level: 'error' }),
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return {
    cluster,
    admin,
    register,
    create: (name, spec, annotations) =>
      admin.create({
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
        spec,
      } as ModelDeployment),
    get,
    selected: (name) => waitFor(`${name} to get a provider`, async () => (await get(name)).status?.provider?.name),
    stop: async () => {
      await mgr?.stop();
      await cluster.stop();
    },
  };
}

// Test fixtures for the provider skeleton: two small provider definitions (one over KAITO's Workspace, which
// the simulator runs; one over a test CRD whose status the test writes itself), ModelDeployment builders,
// the core's part of the status (applied as kubeairunway-core, since no core controller runs here), and
// reading helpers.

import type { CustomResourceDefinition, KubeClient } from '@modelplane/runtime/client';
import { crdFromZod } from '@modelplane/runtime/crd';
import { EventsV1, type KubeEvent } from '@modelplane/runtime/events';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { z } from 'zod';
import {
  CORE_FIELD_MANAGER,
  KAR_API_VERSION,
  MODEL_DEPLOYMENT_KIND,
  type ModelDeployment,
  type ModelDeploymentSpec,
} from '../../../src/apis/kubeairunway/index.ts';
import type { MappedStatus, ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';

type Cond = { type: string; status: string; reason?: string; message?: string };
type WithConditions = KubeObject & { status?: { conditions?: Cond[]; state?: string } };

export const Workspaces = kindRef<WithConditions>('kaito.sh/v1beta1', 'Workspace');

/** a KAITO-like provider over the simulated Workspace: preset = model id, one node per replica */
export const testKaito: ProviderDefinition<WithConditions> = {
  name: 'kaito',
  displayName: 'KAITO',
  upstream: Workspaces,
  upstreamResource: 'workspaces',
  version: '0.0.1-test',
  config: {
    capabilities: { engines: [{ name: 'vllm', servingModes: ['aggregated'], gpuSupport: true }] },
    selectionRules: [{ condition: 'true', priority: 1 }],
  },
  transform(md) {
    return {
      apiVersion: Workspaces.apiVersion,
      kind: Workspaces.kind,
      metadata: {
        name: md.metadata.name,
        namespace: md.metadata.namespace,
        labels: { 'kubeairunway.ai/model-deployment': md.metadata.name ?? '' },
      },
      resource: {
        count: md.spec.scaling?.replicas ?? 1,
        instanceType: 'Standard_NC24ads_A100_v4',
        labelSelector: { matchLabels: { 'nvidia.com/gpu.present': 'true' } },
      },
      inference: { preset: { name: md.spec.model.id ?? 'custom' } },
    };
  },
  // as the real KAITO provider: the counts come from the Workspace, never from the deployment's spec
  mapStatus(ws): MappedStatus {
    const cond = (t: string) => ws.status?.conditions?.find((c) => c.type === t);
    const endpoint = { service: ws.metadata.name ?? '', port: 80 };
    const desired = (ws.resource as { count?: number } | undefined)?.count ?? 1;
    const replicas = { desired, ready: 0 };
    if (cond('WorkspaceSucceeded')?.status === 'True')
      return { phase: 'Running', replicas: { desired, ready: desired }, endpoint };
    if (cond('WorkspaceSucceeded')?.status === 'False')
      return { phase: 'Failed', message: cond('WorkspaceSucceeded')?.message ?? 'failed', replicas };
    const inference = cond('InferenceReady');
    return {
      phase: 'Deploying',
      ...(inference?.status === 'False' && inference.message ? { message: inference.message } : {}),
      replicas,
    };
  },
  // as the real KAITO provider: no supported overrides, every key is reported unknown and ignored
  overridePatch: () => ({}),
};

/** the test CRD `widgets.test.modelplane.io`: whatever spec, and a status the test writes (state: Ready|Failed|…) */
export const Widgets = kindRef<WithConditions>('test.modelplane.io/v1', 'Widget');

export function widgetCrd(): CustomResourceDefinition {
  return crdFromZod({
    group: 'test.modelplane.io',
    kind: 'Widget',
    plural: 'widgets',
    scope: 'Namespaced',
    versions: [{ name: 'v1', specRequired: false, spec: z.looseObject({}), status: z.looseObject({}) }],
  });
}

/** a provider over Widgets: spec mirrors model and replicas; status.state Ready → Running, Failed → Failed */
export const testWidgets: ProviderDefinition<WithConditions> = {
  name: 'widgets',
  displayName: 'Widgets',
  upstream: Widgets,
  upstreamResource: 'widgets',
  version: '0.0.1-test',
  config: {
    capabilities: {
      engines: [{ name: 'vllm', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: true }],
      requiresCRD: true,
    },
  },
  transform(md) {
    if (md.spec.model.id === 'untransformable') throw new Error('spec.model.id "untransformable" has no widget');
    return {
      apiVersion: Widgets.apiVersion,
      kind: Widgets.kind,
      metadata: { name: md.metadata.name, namespace: md.metadata.namespace },
      spec: { model: md.spec.model.id, replicas: md.spec.scaling?.replicas ?? 1, engine: md.spec.engine?.type },
    };
  },
  mapStatus(w): MappedStatus {
    if (w.status?.state === 'Ready')
      return {
        phase: 'Running',
        endpoint: { service: `${w.metadata.name}-svc`, port: 8000 },
        replicas: { desired: 1, ready: 1 },
      };
    if (w.status?.state === 'Failed') return { phase: 'Failed', message: 'widget broke' };
    return { phase: 'Deploying' };
  },
};

export function modelDeployment(
  name: string,
  namespace: string,
  spec: Partial<ModelDeploymentSpec> = {},
  labels?: Record<string, string>,
): ModelDeployment {
  return {
    apiVersion: KAR_API_VERSION,
    kind: MODEL_DEPLOYMENT_KIND,
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    spec: { model: { id: 'phi-3-mini' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, ...spec },
  };
}

/** what the core controller would write: the selected provider, as the core's field manager */
export async function selectProvider(
  client: KubeClient,
  namespace: string,
  name: string,
  provider: string,
): Promise<void> {
  await client.applyStatus(
    {
      apiVersion: KAR_API_VERSION,
      kind: MODEL_DEPLOYMENT_KIND,
      metadata: { name, namespace },
      status: {
        provider: { name: provider, selectedReason: 'test selection' },
        conditions: [
          {
            type: 'ProviderSelected',
            status: 'True',
            reason: 'Selected',
            message: `selected ${provider}`,
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    },
    { fieldManager: CORE_FIELD_MANAGER, force: true },
  );
}

export const condition = (md: ModelDeployment | undefined, type: string) =>
  md?.status?.conditions?.find((c) => c.type === type);

export async function eventsFor(
  client: KubeClient,
  namespace: string,
  name: string,
  reason?: string,
): Promise<KubeEvent[]> {
  const list = await client.list(EventsV1, { namespace });
  return list.items.filter((e) => e.regarding?.name === name && (reason === undefined || e.reason === reason));
}

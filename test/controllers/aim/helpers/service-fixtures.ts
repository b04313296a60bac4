// Fixtures for the AIMService planner tests: docs/aim.md's qwen-chat service and model, runtime configs as the
// resolver produces them, and observations as fetchRemoteState would return them.
import { AIM_API_VERSION } from '../../../../src/apis/aim/index.ts';
import {
  type RuntimeConfigObject,
  type RuntimeConfigSpec,
  resolveRuntimeConfig,
} from '../../../../src/common/runtime-config/index.ts';
import type {
  HTTPRoute,
  InferenceService,
  ModelObject,
  ServiceFetch,
} from '../../../../src/controllers/aim/service/index.ts';
import { modelMode } from '../../../../src/controllers/aim/service/index.ts';
import type { AIMModel, AIMService } from '../../../../src/controllers/aim/shared/kinds.ts';
import type { AimRuntimeConfig } from '../../../../src/controllers/aim/shared/runtime-config-source.ts';
import { FetchResult } from '../../../../src/engine/index.ts';

export const NS = 'ml-team';
export const QWEN_IMAGE = 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5';

type DeepPartialService = {
  metadata?: Partial<AIMService['metadata']>;
  spec?: Partial<AIMService['spec']>;
  status?: AIMService['status'];
};

export function service(over: DeepPartialService = {}): AIMService {
  return {
    apiVersion: AIM_API_VERSION,
    kind: 'AIMService',
    metadata: {
      name: 'qwen-chat',
      namespace: NS,
      uid: '0a1b2c3d-uid',
      generation: 1,
      labels: { project: 'conversational-ai' },
      ...over.metadata,
    },
    spec: { model: { name: 'qwen-qwen3-32b' }, ...over.spec },
    ...(over.status ? { status: over.status } : {}),
  };
}

export function model(
  over: { name?: string; namespace?: string | null; image?: string; status?: string } = {},
): AIMModel {
  const namespace = over.namespace === null ? undefined : (over.namespace ?? NS);
  return {
    apiVersion: AIM_API_VERSION,
    kind: namespace ? 'AIMModel' : 'AIMClusterModel',
    metadata: {
      name: over.name ?? 'qwen-qwen3-32b',
      ...(namespace ? { namespace } : {}),
      uid: `uid-${over.name ?? 'qwen'}`,
    },
    spec: { image: over.image ?? QWEN_IMAGE },
    status: {
      status: (over.status ?? 'Ready') as 'Ready',
      // a model with no template to create (served from its image), as the model controller reports it
      conditions: [
        {
          type: namespace ? 'ServiceTemplatesReady' : 'ClusterServiceTemplatesReady',
          status: 'True',
          reason: 'NoTemplatesExpected',
          message: 'no templates',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
}

/** a runtime config the way fetchAimRuntimeConfig returns it: cluster ⊕ namespace through the real resolver */
export function resolvedConfig(layers: {
  cluster?: RuntimeConfigSpec;
  namespace?: RuntimeConfigSpec;
  name?: string;
}): FetchResult<AimRuntimeConfig> {
  const name = layers.name ?? 'default';
  const candidate = (spec: RuntimeConfigSpec, ns?: string): RuntimeConfigObject => ({
    metadata: { name, ...(ns ? { namespace: ns } : {}), uid: ns ? 'ns-config-uid' : 'cluster-config-uid' },
    spec,
  });
  const r = resolveRuntimeConfig({
    runtimeConfigName: name,
    namespace: NS,
    ...(layers.namespace ? { namespaced: candidate(layers.namespace, NS) } : {}),
    ...(layers.cluster ? { cluster: candidate(layers.cluster) } : {}),
  });
  if (r.outcome === 'ConfigNotFound') throw new Error('fixture: use FetchResult.failure for a missing config');
  return FetchResult.of<AimRuntimeConfig>(
    r.outcome === 'Resolved'
      ? { name, outcome: 'Resolved', spec: r.spec, ref: r.ref }
      : { name, outcome: 'DefaultConfigNotFound', spec: r.spec, message: r.message },
    { kind: 'AIMRuntimeConfig', name, namespace: NS },
  );
}

/** docs/aim.md's "Routing Templates → Example" runtime config */
export const SEED_ROUTING: RuntimeConfigSpec = {
  routing: {
    enabled: true,
    gatewayRef: { name: 'inference-gateway', namespace: 'gateways' },
    pathTemplate: "/ml/{.metadata.namespace}/{.metadata.labels['project']}",
  },
};

export function fetched(
  svc: AIMService,
  opts: { model?: FetchResult<ModelObject>; isvc?: InferenceService; route?: HTTPRoute } = {},
): ServiceFetch {
  const mode = modelMode(svc.spec);
  const name = svc.metadata.name ?? '';
  const ns = svc.metadata.namespace ?? '';
  let modelResult = opts.model;
  if (!modelResult && mode.kind === 'name') modelResult = FetchResult.of<ModelObject>(model({ name: mode.name }));
  if (!modelResult && mode.kind === 'image')
    modelResult = FetchResult.notFound<ModelObject>({ kind: 'AIMModel', namespace: ns });
  return {
    model: { mode, ...(modelResult ? { model: modelResult } : {}) },
    inferenceService: opts.isvc
      ? FetchResult.of(opts.isvc)
      : FetchResult.notFound({ kind: 'InferenceService', name, namespace: ns }),
    httpRoute: opts.route
      ? FetchResult.of(opts.route)
      : FetchResult.notFound({ kind: 'HTTPRoute', name, namespace: ns }),
  };
}

// ModelDeployment → DynamoGraphDeployment (docs/kubeairunway.md): a Frontend (the OpenAI-compatible HTTP server
// and router) and the engine workers, one `VllmWorker` (aggregated) or a `VllmPrefillWorker` and a
// `VllmDecodeWorker` (disaggregated). Upstream keeps the "Vllm" service names for every engine; so do we, so
// that `overrides.spec.services.VllmWorker…` written for upstream applies unchanged.
import { DEFAULT_GPU_TYPE, type EngineType, type ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { type EnvVar, mergeEnvByName } from '../../../../common/env-merge/index.ts';
import { modelCacheEnv, resolveVolumes } from '../../storage/index.ts';
import { defaultModelDeployment, servingModeOf } from '../../validation/index.ts';
import {
  derivedEngineFlags,
  type Flag,
  hfTokenSecretName,
  modelLabels,
  podAnnotations,
  podLabels,
  renderEngineArgs,
  userEnv,
} from '../common/index.ts';
import {
  DGD_KIND,
  DYNAMO_API_VERSION,
  type DynamoComponent,
  type DynamoGraphDeployment,
  type DynamoResourceAmounts,
} from './types.ts';

export const DYNAMO_VERSION = '1.1.1';
export const FRONTEND_SERVICE = 'Frontend';
export const AGGREGATED_WORKER = 'VllmWorker';
export const PREFILL_WORKER = 'VllmPrefillWorker';
export const DECODE_WORKER = 'VllmDecodeWorker';
export const FRONTEND_PORT = 8000;
export const ROUTER_MODE_ENV = 'DYN_ROUTER_MODE';
export const DEFAULT_ROUTER_MODE = 'round-robin';
/** the frontend's default size (upstream: requests cpu 2, memory 4Gi) */
export const FRONTEND_RESOURCES = { cpu: '2', memory: '4Gi' };

type DynamoEngine = Exclude<EngineType, 'llamacpp'>;
type Role = 'prefill' | 'decode';

const RUNTIME_IMAGES: Readonly<Record<DynamoEngine, string>> = {
  vllm: `nvcr.io/nvidia/ai-dynamo/vllm-runtime:${DYNAMO_VERSION}`,
  sglang: `nvcr.io/nvidia/ai-dynamo/sglang-runtime:${DYNAMO_VERSION}`,
  trtllm: `nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:${DYNAMO_VERSION}`,
};

function engineOf(md: ModelDeployment): DynamoEngine {
  const engine = md.spec.engine?.type;
  if (engine === 'vllm' || engine === 'sglang' || engine === 'trtllm') return engine;
  throw new Error(`spec.engine.type: Dynamo runs vllm, sglang or trtllm workers, got ${engine ?? 'nothing'}`);
}

export function runtimeImage(md: ModelDeployment): string {
  return md.spec.engine?.image || md.spec.image || RUNTIME_IMAGES[engineOf(md)];
}

/** the Frontend's env for a router mode; "none" leaves the choice to the frontend's own default */
export function frontendEnv(routerMode: string): EnvVar[] {
  return routerMode === 'none' ? [] : [{ name: ROUTER_MODE_ENV, value: routerMode }];
}

/** nodeSelector and tolerations for every component's pods, and the pod template's labels and annotations */
function podPlacement(
  md: ModelDeployment,
): Pick<DynamoComponent, 'labels' | 'annotations'> & { scheduling: Record<string, unknown> } {
  const spec = md.spec;
  const annotations = podAnnotations(md);
  return {
    labels: podLabels(md),
    ...(annotations ? { annotations } : {}),
    scheduling: {
      ...(Object.keys(spec.nodeSelector ?? {}).length > 0 ? { nodeSelector: { ...spec.nodeSelector } } : {}),
      ...(spec.tolerations?.length ? { tolerations: structuredClone(spec.tolerations) } : {}),
    },
  };
}

function frontend(md: ModelDeployment): DynamoComponent {
  const { scheduling, ...meta } = podPlacement(md);
  return {
    componentType: 'frontend',
    replicas: 1,
    ...meta,
    resources: { requests: { ...FRONTEND_RESOURCES } },
    envs: frontendEnv(DEFAULT_ROUTER_MODE),
    extraPodSpec: {
      ...scheduling,
      mainContainer: {
        image: runtimeImage(md),
        command: ['python3', '-m', 'dynamo.frontend'],
        args: ['--http-port', String(FRONTEND_PORT)],
      },
    },
  };
}

interface WorkerShape {
  role?: Role;
  replicas: number;
  gpus: number;
  gpuType: string;
  memory?: string | number;
}

/** GPUs as Dynamo writes them: `gpu` for NVIDIA's resource name, `custom` for any other vendor's */
function gpuAmounts(count: number, type: string): DynamoResourceAmounts {
  if (count <= 0) return {};
  return type === DEFAULT_GPU_TYPE ? { gpu: String(count) } : { custom: { [type]: String(count) } };
}

function roleFlags(engine: DynamoEngine, role: Role | undefined): Flag[] {
  if (!role) return [];
  const flags: Flag[] = [{ key: 'disaggregation-mode', value: role }];
  if (engine === 'vllm')
    flags.push({
      key: 'kv-transfer-config',
      value: JSON.stringify({ kv_connector: 'NixlConnector', kv_role: 'kv_both' }),
    });
  return flags;
}

function worker(md: ModelDeployment, engine: DynamoEngine, shape: WorkerShape): DynamoComponent {
  const { scheduling, ...meta } = podPlacement(md);
  const gpu = gpuAmounts(shape.gpus, shape.gpuType);
  const limits: DynamoResourceAmounts = { ...gpu };
  if (shape.memory !== undefined) limits.memory = String(shape.memory);
  if (md.spec.resources?.cpu !== undefined) limits.cpu = String(md.spec.resources.cpu);
  // NIXL's side channel listens on the pod IP so prefill and decode workers can reach each other
  const nixl: EnvVar[] =
    shape.role && engine === 'vllm'
      ? [{ name: 'VLLM_NIXL_SIDE_CHANNEL_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }]
      : [];
  const envs = mergeEnvByName(nixl, modelCacheEnv(md), userEnv(md));
  const volumeMounts = resolveVolumes(md).map((v) => ({ name: v.claimName, mountPoint: v.mountPath }));
  const secret = hfTokenSecretName(md);
  const args = renderEngineArgs(md, [
    ...derivedEngineFlags(md, engine, { gpus: shape.gpus }),
    ...roleFlags(engine, shape.role),
  ]);
  return {
    componentType: 'worker',
    ...(shape.role ? { subComponentType: shape.role } : {}),
    replicas: shape.replicas,
    ...meta,
    resources: { requests: structuredClone(gpu), limits },
    // the token Secret is mounted as env by Dynamo (its HF_TOKEN key becomes $HF_TOKEN); we only name it
    ...(secret ? { envFromSecret: secret } : {}),
    ...(envs.length > 0 ? { envs } : {}),
    // the deployment's volumes, by their entry in spec.pvcs (docs/kubeairunway.md, "Model storage")
    ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    extraPodSpec: {
      ...scheduling,
      mainContainer: { image: runtimeImage(md), command: ['python3', '-m', `dynamo.${engine}`], args },
    },
  };
}

/** Dynamo mounts claims it lists in spec.pvcs; ours exist already (the user's, or the provider's managed ones) */
function dynamoPvcs(md: ModelDeployment): { pvcs?: Array<{ name: string; create: false }> } {
  const pvcs = resolveVolumes(md).map((v) => ({ name: v.claimName, create: false as const }));
  return pvcs.length > 0 ? { pvcs } : {};
}

export function graphDeploymentFor(input: ModelDeployment): DynamoGraphDeployment {
  const md = defaultModelDeployment(input);
  const spec = md.spec;
  const engine = engineOf(md);
  const services: Record<string, DynamoComponent> = { [FRONTEND_SERVICE]: frontend(md) };
  if (servingModeOf(spec) === 'disaggregated') {
    for (const [role, name] of [
      ['prefill', PREFILL_WORKER],
      ['decode', DECODE_WORKER],
    ] as const) {
      const c = spec.scaling?.[role];
      if (!c) throw new Error(`spec.scaling.${role}: disaggregated mode needs prefill and decode workers`);
      services[name] = worker(md, engine, {
        role,
        replicas: c.replicas ?? 1,
        gpus: c.gpu?.count ?? 0,
        gpuType: c.gpu?.type ?? DEFAULT_GPU_TYPE,
        ...(c.memory !== undefined ? { memory: c.memory } : {}),
      });
    }
  } else {
    const gpu = spec.resources?.gpu;
    services[AGGREGATED_WORKER] = worker(md, engine, {
      replicas: spec.scaling?.replicas ?? 1,
      gpus: gpu?.count ?? 0,
      gpuType: gpu?.type ?? DEFAULT_GPU_TYPE,
      ...(spec.resources?.memory !== undefined ? { memory: spec.resources.memory } : {}),
    });
  }
  return {
    apiVersion: DYNAMO_API_VERSION,
    kind: DGD_KIND,
    metadata: { name: md.metadata.name ?? '', namespace: md.metadata.namespace ?? '', labels: modelLabels(md) },
    spec: { backendFramework: engine, services, ...dynamoPvcs(md) },
  };
}

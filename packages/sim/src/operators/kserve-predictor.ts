// What KServe (RawDeployment mode) builds for an InferenceService's predictor: the `<name>-predictor`
// Deployment and Service. Pure: from the InferenceService to the desired objects, or the reason KServe
// would refuse (no runtime supports the model format, the runtime named does not exist, a malformed
// predictor). The serving runtimes are KServe's built-in ClusterServingRuntimes.

import type { KubeObject } from '@modelplane/runtime/meta';
import { servingAnnotations } from '../inference/index.ts';
import { findSimImage } from '../registry/index.ts';
import type { Container, Deployment, Json, PodSpec, Service } from './kinds.ts';
import { deploymentFor, serviceFor, simAnnotations } from './workload.ts';

/** the env an AIM image reads the model to serve from (a custom AIM model, docs/aim.md) */
const AIM_MODEL_ID_ENV = 'AIM_MODEL_ID';

/**
 * What a predictor container serves, as the operator knows it: an AIM image serves an OpenAI-compatible
 * vLLM server on the container port, the model its AIM_MODEL_ID names (a custom AIM model), else the one
 * the image was built for (its com.amd.aim.model.canonicalName label, from the simulated registry), so its
 * pods get the inference simulator. Other runtimes (sklearn, …) serve no chat model: nothing.
 */
function predictorServing(main: Container): Record<string, string> {
  const env = main.env?.find((e) => e.name === AIM_MODEL_ID_ENV)?.value;
  const model = typeof env === 'string' && env ? env : findSimImage(main.image ?? '')?.entry.canonicalName;
  return model ? servingAnnotations(model, servingPort(main)) : {};
}

export const ISVC_LABEL = 'serving.kserve.io/inferenceservice';
export const PREDICTOR_CONTAINER = 'kserve-container';
const DEFAULT_PORT = 8080;
const KSERVE_VERSION = 'v0.15.2';

interface RuntimeInfo {
  name: string;
  image: string;
  args: string[];
  formats: string[];
}

const RUNTIMES: RuntimeInfo[] = [
  {
    name: 'kserve-huggingfaceserver',
    image: `kserve/huggingfaceserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}'],
    formats: ['huggingface'],
  },
  {
    name: 'kserve-sklearnserver',
    image: `kserve/sklearnserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
    formats: ['sklearn'],
  },
  {
    name: 'kserve-xgbserver',
    image: `kserve/xgbserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
    formats: ['xgboost'],
  },
  {
    name: 'kserve-lgbserver',
    image: `kserve/lgbserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
    formats: ['lightgbm'],
  },
  {
    name: 'kserve-pmmlserver',
    image: `kserve/pmmlserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
    formats: ['pmml'],
  },
  {
    name: 'kserve-paddleserver',
    image: `kserve/paddleserver:${KSERVE_VERSION}`,
    args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
    formats: ['paddle'],
  },
  {
    name: 'kserve-tensorflow-serving',
    image: 'tensorflow/serving:2.6.2',
    args: ['--model_name={{.Name}}', '--port=9000', '--rest_api_port=8080', '--model_base_path=/mnt/models'],
    formats: ['tensorflow'],
  },
  {
    name: 'kserve-torchserve',
    image: 'pytorch/torchserve-kfs:0.9.0',
    args: [
      'torchserve',
      '--start',
      '--model-store=/mnt/models/model-store',
      '--ts-config=/mnt/models/config/config.properties',
    ],
    formats: ['pytorch'],
  },
  {
    name: 'kserve-tritonserver',
    image: 'nvcr.io/nvidia/tritonserver:23.05-py3',
    args: ['tritonserver', '--model-store=/mnt/models', '--grpc-port=9000', '--http-port=8080'],
    formats: ['triton', 'onnx', 'tensorrt'],
  },
  { name: 'kserve-mlserver', image: 'docker.io/seldonio/mlserver:1.5.0', args: [], formats: [] },
];

/** the framework-specific predictor forms of v1beta1, each a model of that format */
const LEGACY_FRAMEWORKS = [
  'sklearn',
  'xgboost',
  'tensorflow',
  'pytorch',
  'triton',
  'onnx',
  'pmml',
  'lightgbm',
  'paddle',
  'huggingface',
];

/** predictor fields that configure the component rather than the pod */
const COMPONENT_FIELDS = new Set([
  'model',
  'containers',
  ...LEGACY_FRAMEWORKS,
  'minReplicas',
  'maxReplicas',
  'scaleTarget',
  'scaleMetric',
  'scaleMetricType',
  'containerConcurrency',
  'timeout',
  'canaryTrafficPercent',
  'logger',
  'batcher',
  'labels',
  'annotations',
  'deploymentStrategy',
  'autoScaling',
  'workerSpec',
  'storageUri',
  'storageUris',
  'storage',
]);

/** model fields that are not container fields */
const MODEL_ONLY_FIELDS = new Set(['modelFormat', 'runtime', 'storageUri', 'storage', 'protocolVersion']);

const FILTERED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export interface PredictorPlan {
  deployment: Deployment;
  service: Service;
  selector: Record<string, string>;
  runtime?: string;
}

export interface PlanError {
  reason: 'NoSupportingRuntime' | 'RuntimeNotRecognized' | 'InvalidPredictorSpec';
  message: string;
}

type Resolved = { container: Container; runtime?: string } | { error: PlanError };

function runtimeFor(format: string | undefined, runtimeName: string | undefined): RuntimeInfo | PlanError {
  if (runtimeName) {
    const rt = RUNTIMES.find((r) => r.name === runtimeName);
    return rt ?? { reason: 'RuntimeNotRecognized', message: `specified runtime ${runtimeName} does not exist` };
  }
  const rt = RUNTIMES.find((r) => format !== undefined && r.formats.includes(format.toLowerCase()));
  return (
    rt ?? {
      reason: 'NoSupportingRuntime',
      message: `No runtime found to support predictor with model type: ${format ?? '<none>'}`,
    }
  );
}

function modelContainer(isvcName: string, model: Json, format: string | undefined): Resolved {
  const runtimeName = typeof model.runtime === 'string' ? model.runtime : undefined;
  const found = runtimeFor(format, runtimeName);
  // a model with its own image needs no runtime image, but a named runtime must still exist
  if ('reason' in found && (found.reason === 'RuntimeNotRecognized' || typeof model.image !== 'string'))
    return { error: found };
  const rt = 'reason' in found ? undefined : found;
  const fields = Object.fromEntries(Object.entries(model).filter(([k]) => !MODEL_ONLY_FIELDS.has(k)));
  const container: Container = {
    ...fields,
    name: PREDICTOR_CONTAINER,
    image: typeof model.image === 'string' ? model.image : (rt?.image ?? ''),
    args: [
      ...(rt?.args ?? []).map((a) => a.replace('{{.Name}}', isvcName)),
      ...((model.args as string[] | undefined) ?? []),
    ],
    resources: (model.resources as Container['resources']) ?? {
      requests: { cpu: '1', memory: '2Gi' },
      limits: { cpu: '1', memory: '2Gi' },
    },
    ports: (model.ports as Container['ports']) ?? [{ containerPort: DEFAULT_PORT, protocol: 'TCP' }],
  };
  if (typeof model.storageUri === 'string' && !(container.env ?? []).some((e) => e.name === 'STORAGE_URI')) {
    container.env = [...(container.env ?? []), { name: 'STORAGE_URI', value: model.storageUri }];
  }
  return { container, ...(rt ? { runtime: rt.name } : {}) };
}

function resolveContainers(
  isvcName: string,
  predictor: Json,
): { containers: Container[]; runtime?: string } | { error: PlanError } {
  const forms = ['model', 'containers', ...LEGACY_FRAMEWORKS].filter((k) => predictor[k] !== undefined);
  if (forms.length !== 1) {
    return {
      error: {
        reason: 'InvalidPredictorSpec',
        message: `Exactly one of [Model, Custom containers, ${LEGACY_FRAMEWORKS.join(', ')}] must be specified in PredictorSpec, found ${forms.length === 0 ? 'none' : forms.join(', ')}`,
      },
    };
  }
  const form = forms[0]!;
  if (form === 'containers') {
    const list = predictor.containers as Container[];
    if (!Array.isArray(list) || list.length === 0)
      return {
        error: {
          reason: 'InvalidPredictorSpec',
          message: 'spec.predictor.containers must hold at least one container',
        },
      };
    const mainIndex = Math.max(
      0,
      list.findIndex((c) => c.name === PREDICTOR_CONTAINER),
    );
    return { containers: list.map((c, i) => (i === mainIndex ? { ...c, name: c.name ?? PREDICTOR_CONTAINER } : c)) };
  }
  const model = predictor[form] as Json;
  const format = form === 'model' ? ((model.modelFormat as { name?: string } | undefined)?.name ?? undefined) : form;
  const r = modelContainer(isvcName, model, format);
  return 'error' in r ? r : { containers: [r.container], ...(r.runtime ? { runtime: r.runtime } : {}) };
}

/** the port the predictor container serves HTTP on (the Service's targetPort) */
function servingPort(c: Container): number {
  return c.ports?.[0]?.containerPort ?? DEFAULT_PORT;
}

export function planPredictor(isvc: KubeObject): PredictorPlan | { error: PlanError } {
  const name = isvc.metadata.name ?? '';
  const predictor = ((isvc.spec as Json | undefined)?.predictor ?? {}) as Json;
  const resolved = resolveContainers(name, predictor);
  if ('error' in resolved) return resolved;
  const podFields = Object.fromEntries(Object.entries(predictor).filter(([k]) => !COMPONENT_FIELDS.has(k)));
  const selector = { app: `isvc.${name}-predictor` };
  const labels = {
    ...(isvc.metadata.labels ?? {}),
    ...((predictor.labels as Record<string, string> | undefined) ?? {}),
    ...selector,
    component: 'predictor',
    [ISVC_LABEL]: name,
  };
  const main = resolved.containers.find((c) => c.name === PREDICTOR_CONTAINER) ?? resolved.containers[0]!;
  const served = predictorServing(main);
  const annotations = {
    // the simulator's marks first: the user's sim.modelplane.io annotations below win
    ...served,
    ...Object.fromEntries(
      Object.entries(isvc.metadata.annotations ?? {}).filter(([k]) => !FILTERED_ANNOTATIONS.has(k)),
    ),
    ...((predictor.annotations as Record<string, string> | undefined) ?? {}),
    ...simAnnotations(isvc),
  };
  const spec: PodSpec = { ...podFields, containers: resolved.containers };
  const replicas = Math.max(1, typeof predictor.minReplicas === 'number' ? predictor.minReplicas : 1);
  const deploymentName = `${name}-predictor`;
  const deployment = deploymentFor({
    owner: isvc,
    name: deploymentName,
    labels,
    selector,
    replicas,
    template: { metadata: { labels, annotations }, spec },
    annotations,
  });
  const service = serviceFor(isvc, deploymentName, labels, selector, [
    { name: 'http', port: 80, targetPort: servingPort(main) },
  ]);
  return { deployment, service, selector, ...(resolved.runtime ? { runtime: resolved.runtime } : {}) };
}

export const AUTOSCALER_CLASS_ANNOTATION = 'serving.kserve.io/autoscalerClass';

interface MetricTarget {
  type?: string;
  value?: string | number;
  averageValue?: string | number;
  averageUtilization?: number;
}

interface MetricSpec {
  type?: string;
  resource?: { name?: string; target?: MetricTarget };
  external?: {
    metric?: { backend?: string; serverAddress?: string; query?: string; namespace?: string };
    target?: MetricTarget;
  };
  podmetric?: {
    metric?: {
      backend?: string;
      serverAddress?: string;
      metricNames?: string[];
      query?: string;
      operationOverTime?: string;
    };
    target?: MetricTarget;
  };
}

function targetValue(t: MetricTarget | undefined, fallback: string): string {
  const v = t?.value ?? t?.averageValue ?? t?.averageUtilization;
  return v === undefined ? fallback : String(v);
}

/** KServe's KEDA triggers for the predictor's autoScaling metrics (CPU at scaleTarget, default 80 %, when none) */
function kedaTriggers(predictor: Json): Json[] {
  const metrics = ((predictor.autoScaling as { metrics?: MetricSpec[] } | undefined)?.metrics ?? []) as MetricSpec[];
  if (metrics.length === 0) {
    const metric = typeof predictor.scaleMetric === 'string' ? predictor.scaleMetric : 'cpu';
    return [{ type: metric, metricType: 'Utilization', metadata: { value: String(predictor.scaleTarget ?? 80) } }];
  }
  return metrics.map((m) => {
    if (m.type === 'Resource' || m.resource) {
      const t = m.resource?.target;
      return {
        type: m.resource?.name ?? 'cpu',
        metricType: t?.type === 'AverageValue' ? 'AverageValue' : 'Utilization',
        metadata: { value: targetValue(t, '80') },
      };
    }
    if (m.type === 'External' || m.external) {
      const e = m.external?.metric ?? {};
      return {
        type: e.backend ?? 'prometheus',
        metadata: {
          serverAddress: e.serverAddress ?? '',
          query: e.query ?? '',
          threshold: targetValue(m.external?.target, '1'),
          ...(e.namespace ? { namespace: e.namespace } : {}),
        },
      };
    }
    const p = m.podmetric?.metric ?? {};
    return {
      type: 'external',
      metadata: {
        scalerAddress: p.serverAddress ?? 'keda-otel-scaler.keda.svc:4318',
        metricQuery: p.query ?? (p.metricNames ?? []).join(','),
        targetValue: targetValue(m.podmetric?.target, '1'),
        operationOverTime: p.operationOverTime ?? 'last_one',
      },
    };
  });
}

/** the ScaledObject KServe creates for `serving.kserve.io/autoscalerClass: keda`, or undefined */
export function planScaledObject(isvc: KubeObject, plan: PredictorPlan): KubeObject | undefined {
  if (isvc.metadata.annotations?.[AUTOSCALER_CLASS_ANNOTATION] !== 'keda') return undefined;
  const predictor = ((isvc.spec as Json | undefined)?.predictor ?? {}) as Json;
  const min = typeof predictor.minReplicas === 'number' ? predictor.minReplicas : 1;
  const max = Math.max(min, typeof predictor.maxReplicas === 'number' ? predictor.maxReplicas : min);
  const name = plan.deployment.metadata.name ?? '';
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: {
      name,
      namespace: isvc.metadata.namespace ?? '',
      labels: plan.deployment.metadata.labels ?? {},
      ownerReferences: plan.deployment.metadata.ownerReferences ?? [],
    },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicaCount: min,
      maxReplicaCount: max,
      triggers: kedaTriggers(predictor),
    },
  };
}

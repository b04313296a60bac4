// The AIMService reconciler on the engine: fetch (cache reads only), compose (the pure planner's one
// computation), plan, component health and the status fields of our own. The pipeline resolves the
// runtime config and propagates labels; mapState gives docs/aim.md's state names.

import { HorizontalPodAutoscalers } from '@modelplane/runtime/client';
import type { ResolvedRuntimeConfigRef } from '../../../common/runtime-config/index.ts';
import {
  type ComponentState,
  DEFAULT_SETTLE_WINDOW_MS,
  type DomainReconciler,
  type EngineStatus,
  type FetchResult,
  fetch,
  type HealthReport,
  livePodsHealth,
  lockedReference,
  Pipeline,
  type PipelineOptions,
  type ReadClient,
  type ResolvedReference,
} from '../../../engine/index.ts';
import type { AIMService, AnyTemplate } from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import {
  type AimRuntimeConfig,
  aimRuntimeConfigSource,
  resolvedRuntimeConfigRef,
} from '../shared/runtime-config-source.ts';
import { isTemplateReady, readyTemplate } from './catalog.ts';
import { fetchServiceCache } from './catalog-fetch.ts';
import { HTTPRoutes, type InferenceService, InferenceServices } from './children.ts';
import { inspectInferenceService, serviceHealth } from './health.ts';
import { PREDICTOR_PORT } from './inference-service.ts';
import { isModelReady, type ModelObject, modelMissing, modelMode, modelReference } from './model.ts';
import { fetchServiceModel } from './model-fetch.ts';
import {
  AIM_SERVICE_CONTROLLER,
  httpRouteName,
  ISVC_POD_LABEL,
  inferenceServiceName,
  PAUSE_ANNOTATION,
} from './names.ts';
import {
  desireService,
  liveCacheVolumes,
  planService,
  type ServiceFetch,
  type ServiceObservation,
  templateReference,
} from './plan.ts';
import { kedaHpaName, replicaPlan, runtimeStatus } from './replicas.ts';
import { servedPath } from './routing.ts';
import { fetchRunning } from './running.ts';
import { servingInputsOf } from './serving-inputs.ts';
import { observeServiceTemplate } from './template-observation.ts';

export interface AimServiceStatus extends EngineStatus {
  status?: string;
  observedGeneration?: number;
  resolvedRuntimeConfig?: ResolvedRuntimeConfigRef;
  resolvedModel?: ResolvedReference;
  resolvedTemplate?: ResolvedReference;
  cache?: { templateCacheRef?: ResolvedReference };
  routing?: { path?: string };
  runtime?: ReturnType<typeof runtimeStatus>;
}

/** docs/aim.md's AIMService states: Progressing → Starting, Ready → Running; NotAvailable is shown as Degraded */
export function serviceState(state: ComponentState): string {
  switch (state) {
    case 'Ready':
    case 'Running':
      return 'Running';
    case 'Progressing':
    case 'Starting':
      return 'Starting';
    case 'NotAvailable':
      return 'Degraded';
    default:
      return state;
  }
}

export const aimServiceReconciler: DomainReconciler<
  AIMService,
  ServiceFetch,
  ServiceObservation,
  AimRuntimeConfig,
  AimServiceStatus
> = {
  async fetchRemoteState({ object, reader, client }) {
    const ns = object.metadata.namespace;
    const name = object.metadata.name ?? '';
    const isvcName = inferenceServiceName(name);
    const autoscaled = replicaPlan(object.spec, isvcName, PREDICTOR_PORT).autoscaled;
    const [inferenceService, httpRoute, hpa] = await Promise.all([
      fetch(reader, InferenceServices, isvcName, ns),
      fetch(reader, HTTPRoutes, httpRouteName(name), ns),
      autoscaled ? fetch(reader, HorizontalPodAutoscalers, kedaHpaName(isvcName), ns) : undefined,
    ]);
    const predictorPods = await fetchPredictorPods(client, inferenceService);
    const children = {
      inferenceService,
      httpRoute,
      ...(hpa?.ok() ? { hpa: hpa.value } : {}),
      ...(predictorPods ? { predictorPods } : {}),
    };
    const inputs = inferenceService.ok() ? servingInputsOf(inferenceService.value) : undefined;
    if (inputs) {
      // docs/controllers.md's downstream gating: the running InferenceService is not rebuilt from upstream
      const mountsCache = liveCacheVolumes(inferenceService.value!).length > 0;
      const { running, cache } = await fetchRunning(object, reader, inputs, mountsCache);
      return { model: { mode: modelMode(object.spec) }, ...children, running, ...(cache ? { cache } : {}) };
    }
    const model = await fetchServiceModel(object, reader);
    const template = await observeServiceTemplate(object, reader, model);
    const cache = await fetchServiceCache(object, reader, readyTemplate(template));
    return { model, ...children, template, ...(cache ? { cache } : {}) };
  },

  composeState: ({ object, runtimeConfig }, fetched) => desireService(object, runtimeConfig, fetched),

  planResources: ({ object }, obs) => planService(object, obs),

  getComponentHealth: (obs, { object, runtimeConfig }) => serviceHealth(obs, runtimeConfig, object),

  decorateStatus(status, _cm, obs, { object, runtimeConfig }) {
    setOrDelete(status, 'resolvedRuntimeConfig', resolvedRuntimeConfigRef(runtimeConfig, status.resolvedRuntimeConfig));
    setOrDelete(status, 'resolvedModel', resolvedModel(obs, status.resolvedModel));
    setOrDelete(status, 'resolvedTemplate', resolvedTemplate(obs, status.resolvedTemplate));
    const cache = obs.cache?.cache.ok() ? obs.cache.cache.value : undefined;
    if (cache)
      status.cache = {
        templateCacheRef: {
          kind: 'AIMTemplateCache',
          name: cache.metadata.name ?? '',
          namespace: cache.metadata.namespace ?? '',
          scope: 'Namespace',
          uid: cache.metadata.uid ?? '',
        },
      };
    else if (!obs.cache) delete status.cache;
    status.runtime = runtimeStatus(
      replicaPlan(object.spec, inferenceServiceName(object.metadata.name ?? ''), PREDICTOR_PORT),
      obs.hpa,
    );
    const routing = obs.desired?.routing;
    const served = obs.httpRoute.ok() ? servedPath(obs.httpRoute.value) : undefined;
    if (routing?.kind === 'route') status.routing = { path: routing.path };
    // an invalid route keeps the last good HTTPRoute serving: status shows the path it really routes
    else if (routing?.kind === 'invalid' && served) status.routing = { path: served };
    else if (routing?.kind === 'disabled' || routing?.kind === 'invalid') delete status.routing;
    // otherwise (config unresolved) the last path stays
  },
};

/** the predictor's pods, read live only while KServe does not report the InferenceService Ready */
async function fetchPredictorPods(
  client: ReadClient,
  isvc: FetchResult<InferenceService>,
): Promise<HealthReport | undefined> {
  if (!isvc.ok() || inspectInferenceService(isvc.value).state === 'Ready') return undefined;
  const { name, namespace } = isvc.value.metadata;
  return livePodsHealth(client, namespace ?? '', `${ISVC_POD_LABEL}=${name ?? ''}`);
}

/** the docs/controllers.md resolved-reference rule: lock a model in once it is Ready, keep it while it still fits the spec */
function resolvedModel(
  obs: ServiceObservation,
  previous: ResolvedReference | undefined,
): ResolvedReference | undefined {
  if (obs.running) return obs.running.inputs.model ?? previous;
  const { mode, model } = obs.model;
  if (mode.kind === 'invalid') return undefined;
  const stillFits = previous && (mode.kind === 'image' || previous.name === mode.name) ? previous : undefined;
  if (modelMissing(model)) return undefined;
  return lockedReference<ModelObject>(model, isModelReady, modelReference, stillFits);
}

/** the template in use, locked in once Ready (a template deleted under a running service keeps its reference) */
function resolvedTemplate(
  obs: ServiceObservation,
  previous: ResolvedReference | undefined,
): ResolvedReference | undefined {
  if (obs.running) return obs.running.inputs.template;
  const t = obs.template;
  if (!t || t.kind === 'none') return undefined;
  if (t.kind === 'unselected') return obs.inferenceService.ok() ? previous : undefined;
  return lockedReference<AnyTemplate>(t.template, isTemplateReady, templateReference, previous);
}

function setOrDelete<K extends keyof AimServiceStatus>(
  status: AimServiceStatus,
  key: K,
  value: AimServiceStatus[K] | undefined,
): void {
  if (value === undefined) delete status[key];
  else status[key] = value;
}

export interface AimServicePipelineOptions
  extends Partial<
    Pick<
      PipelineOptions<AIMService, ServiceFetch, ServiceObservation, AimRuntimeConfig, AimServiceStatus>,
      'clock' | 'gracePeriodMs' | 'settleWindowMs'
    >
  > {
  operatorNamespace: string;
}

export function aimServicePipeline(
  opts: AimServicePipelineOptions,
): Pipeline<AIMService, ServiceFetch, ServiceObservation, AimRuntimeConfig, AimServiceStatus> {
  return new Pipeline({
    name: AIM_SERVICE_CONTROLLER,
    reconciler: aimServiceReconciler,
    pauseAnnotation: PAUSE_ANNOTATION,
    runtimeConfig: aimRuntimeConfigSource<AIMService>(opts.operatorNamespace),
    labelPropagators: [runtimeConfigLabelPropagator],
    mapState: serviceState,
    observedGeneration: true,
    // KServe and the gateway often answer within moments of the apply: Running in one status write
    settleWindowMs: opts.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.gracePeriodMs !== undefined ? { gracePeriodMs: opts.gracePeriodMs } : {}),
  });
}

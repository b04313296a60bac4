// The AIMService planner. Pure: from the service, its resolved runtime config and what the fetch observed
// to the desired children. `desireService` computes them once per reconcile (the engine's composeState),
// and planResources, component health and status all read that one result.

import type { KubeObject } from '@modelplane/runtime/meta';
import { ORIGIN_AUTO_GENERATED, ORIGIN_LABEL } from '../../../apis/aim/index.ts';
import { configStorageClass } from '../../../common/model-storage/index.ts';
import { mergeRuntimeConfig, type RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { HealthReport } from '../../../engine/health.ts';
import { type ObjectRef, PlanResult } from '../../../engine/plan.ts';
import type { ResolvedReference } from '../../../engine/references.ts';
import { AIMModels, type AIMService, type AIMTemplateCache, type AnyTemplate } from '../shared/kinds.ts';
import type { AimRuntimeConfig } from '../shared/runtime-config-source.ts';
import {
  buildServiceCache,
  type CacheObservation,
  isTemplateReady,
  readyTemplate,
  type TemplateObservation,
} from './catalog.ts';
import { type HTTPRoute, HTTPRoutes, type InferenceService } from './children.ts';
import { buildCustomModel, inheritedModelSpec } from './custom-model.ts';
import { buildInferenceService, type CacheVolume, type TemplateInput } from './inference-service.ts';
import { isModelReady, type ModelObservation, modelReference, servedImage } from './model.ts';
import { autoModelName, inferenceServiceName, MANAGED_BY, MANAGED_BY_LABEL } from './names.ts';
import { planRouting, type RoutingPlan } from './routing.ts';
import type { RunningObservation } from './running.ts';

/** how often a predictor that is not Ready has its pods looked at */
export const PREDICTOR_POLL_MS = 5_000;

/** what fetchRemoteState reads */
export interface ServiceFetch {
  model: ModelObservation;
  inferenceService: FetchResult<InferenceService>;
  httpRoute: FetchResult<HTTPRoute>;
  /** the template (named, selected, or none for a model without templates) */
  template?: TemplateObservation;
  /** the template cache, when the Ready template has model sources */
  cache?: CacheObservation;
  /** the KEDA HPA of an autoscaled predictor, once KServe's ScaledObject made one */
  hpa?: KubeObject;
  /** the predictor pods' health, read while the InferenceService is not Ready */
  predictorPods?: HealthReport;
  /** the InferenceService exists and records what it was built with: upstream is only reported on */
  running?: RunningObservation;
}

export interface DesiredService {
  /** the runtime config with the service's inline routing/storage/env on top */
  effective: RuntimeConfigSpec;
  inferenceService?: KubeObject;
  /** an AIMModel to create for spec.model.image (no owner: other services may use it too) */
  autoModel?: KubeObject;
  /** the AIMTemplateCache to create (Shared: no owner; Dedicated: owned) */
  cache?: { object: KubeObject; owned: boolean };
  routing: RoutingPlan;
}

export interface ServiceObservation extends ServiceFetch {
  /** undefined while the runtime config does not resolve (nothing can be planned then) */
  desired?: DesiredService;
}

/** how messages name the resolved runtime config */
export function describeRuntimeConfig(rc: AimRuntimeConfig): string {
  const ref = rc.ref;
  if (!ref) return `runtime config "${rc.name}"`;
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}

/** the inline AIMService values over the resolved config, field by field (docs/architecture.md, "Decisions where the designs are silent") */
export function effectiveConfig(rcSpec: RuntimeConfigSpec, service: AIMService): RuntimeConfigSpec {
  const { routing, storage, env } = service.spec;
  return mergeRuntimeConfig(rcSpec, undefined, {
    ...(routing ? { routing } : {}),
    ...(storage ? { storage } : {}),
    ...(env ? { env } : {}),
  });
}

export function desireService(
  service: AIMService,
  runtimeConfig: FetchResult<AimRuntimeConfig> | undefined,
  fetched: ServiceFetch,
): ServiceObservation {
  if (!runtimeConfig?.ok()) return { ...fetched };
  const rc = runtimeConfig.value;
  const effective = effectiveConfig(rc.spec, service);
  const isvcName = inferenceServiceName(service.metadata.name ?? '');
  const model = fetched.model.model;
  const desired: DesiredService = {
    effective,
    routing: planRouting({
      service,
      runtimeConfig: rc.spec,
      runtimeConfigName: describeRuntimeConfig(rc),
      effective,
      isvcName,
    }),
  };
  const live = fetched.inferenceService.ok() ? fetched.inferenceService.value : undefined;
  const running = fetched.running;
  if (running && live) {
    // the chain's part comes from what the InferenceService was built with: upstream changes never reach it
    desired.inferenceService = buildInferenceService({
      service,
      name: isvcName,
      effective,
      inputs: running.inputs,
      cacheVolumes: liveCacheVolumes(live),
    });
    const t = running.template?.ok() && isTemplateReady(running.template.value) ? running.template.value : undefined;
    if (t && fetched.cache?.cache.isNotFound()) desired.cache = plannedCache(service, t, fetched.cache, effective);
    return { ...fetched, desired };
  }
  const template = fetched.template ? readyTemplate(fetched.template) : undefined;
  const image = servedImage(fetched.model);
  const readyModel = model?.ok() && isModelReady(model.value) ? model.value : undefined;
  if (image && readyModel && inferenceServiceGate(fetched)) {
    desired.inferenceService = buildInferenceService({
      service,
      name: isvcName,
      effective,
      inputs: {
        image,
        model: modelReference(readyModel),
        ...(template ? { template: templateReference(template), templateInput: templateInput(template) } : {}),
      },
      cacheVolumes: readyCacheVolumes(fetched.cache),
    });
  }
  if (template && fetched.cache?.cache.isNotFound())
    desired.cache = plannedCache(service, template, fetched.cache, effective);
  const mode = fetched.model.mode;
  if (mode.kind === 'image' && model?.isNotFound()) desired.autoModel = buildAutoModel(service, mode.image);
  if (mode.kind === 'custom' && model?.isNotFound()) desired.autoModel = buildCustomModel(service, mode.custom);
  return { ...fetched, desired };
}

/** the AIMModel created for `spec.model.image`, carrying the service's runtime config and credentials */
export function buildAutoModel(service: AIMService, image: string): KubeObject {
  return {
    apiVersion: AIMModels.apiVersion,
    kind: AIMModels.kind,
    metadata: {
      name: autoModelName(image),
      namespace: service.metadata.namespace ?? '',
      labels: { [ORIGIN_LABEL]: ORIGIN_AUTO_GENERATED, [MANAGED_BY_LABEL]: MANAGED_BY },
    },
    spec: { image, ...inheritedModelSpec(service) },
  };
}

/** is `obj` controlled by `owner` (so ours to delete)? */
function controlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata.uid);
}

export function planService(service: AIMService, obs: ServiceObservation): PlanResult {
  const plan = new PlanResult();
  const desired = obs.desired;
  if (!desired) return plan;
  if (desired.autoModel) plan.applyWithoutOwnerRef(desired.autoModel);
  if (desired.cache?.owned) plan.apply(desired.cache.object);
  else if (desired.cache) plan.applyWithoutOwnerRef(desired.cache.object);
  if (desired.inferenceService) plan.apply(desired.inferenceService);
  const routing = desired.routing;
  if (routing.kind === 'route') {
    plan.apply(routing.route);
  } else if (routing.kind === 'disabled' && obs.httpRoute.ok() && controlledBy(obs.httpRoute.value, service)) {
    const live = obs.httpRoute.value;
    const ref: ObjectRef = {
      apiVersion: HTTPRoutes.apiVersion,
      kind: HTTPRoutes.kind,
      metadata: { name: live.metadata.name ?? '', namespace: live.metadata.namespace ?? '' },
    };
    plan.delete(ref);
  }
  // a predictor that is not Ready is looked at again: its pods' state changes without the InferenceService's
  if (obs.predictorPods && obs.predictorPods.reason !== 'NoPods') plan.requeueAfter(PREDICTOR_POLL_MS);
  // an invalid route (template, gateway, timeout) is neither created nor re-applied: the last good route,
  // if there is one, keeps serving until the user fixes the field the condition names
  return plan;
}

/** status.resolvedTemplate for a template */
export function templateReference(t: AnyTemplate): ResolvedReference {
  return {
    kind: t.kind,
    name: t.metadata.name ?? '',
    namespace: t.metadata.namespace ?? '',
    scope: t.metadata.namespace ? 'Namespace' : 'Cluster',
    uid: t.metadata.uid ?? '',
  };
}

/** the template's part of the InferenceService */
export function templateInput(t: AnyTemplate): TemplateInput {
  const hw = t.status?.resolvedHardware ?? t.spec.hardware;
  const count = hw?.gpu?.requests ?? 0;
  return {
    name: t.metadata.name ?? '',
    metric: t.status?.profile?.metadata?.metric ?? t.spec.metric,
    precision: t.status?.profile?.metadata?.precision ?? t.spec.precision,
    profileId: t.spec.profileId,
    env: t.spec.env,
    ...(count > 0 ? { gpu: { count, resourceName: hw?.gpu?.resourceName ?? 'amd.com/gpu' } } : {}),
    nodeAffinity: t.status?.resolvedNodeAffinity,
  };
}

/**
 * May the InferenceService be created? Only once the model is Ready, its template (if the model has any)
 * is Ready and the template's cache (if it needs one) is Ready: nothing is served before its chain can
 * serve. An InferenceService that exists without a serving-inputs record (built by an older version) is
 * held to the same rule before it is re-applied, so it is never rewritten from a half-ready chain.
 */
export function inferenceServiceGate(fetched: ServiceFetch): boolean {
  const m = fetched.model.model;
  if (!m?.ok() || !isModelReady(m.value)) return false;
  const t = fetched.template;
  const templateOk = !t || t.kind === 'none' || readyTemplate(t) !== undefined;
  const cache = fetched.cache;
  return templateOk && (!cache || (cache.cache.ok() && cache.cache.value.status?.status === 'Ready'));
}

function plannedCache(
  service: AIMService,
  template: AnyTemplate,
  cache: CacheObservation,
  effective: RuntimeConfigSpec,
): { object: KubeObject; owned: boolean } {
  return {
    object: buildServiceCache(service, template, cache, configStorageClass(effective)),
    owned: cache.mode === 'Dedicated',
  };
}

function readyCacheVolumes(cache: CacheObservation | undefined): CacheVolume[] {
  return cache?.cache.ok() && cache.cache.value.status?.status === 'Ready' ? cacheVolumes(cache.cache.value) : [];
}

function cacheVolumes(cache: AIMTemplateCache): CacheVolume[] {
  return Object.values(cache.status?.artifacts ?? {})
    .filter((a) => a.persistentVolumeClaim && a.mountPoint)
    .map((a) => ({
      name: `cache-${(a.persistentVolumeClaim ?? '').slice(0, 56)}`,
      claimName: a.persistentVolumeClaim!,
      mountPath: a.mountPoint!,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** the PVC volumes a live InferenceService mounts (kept whatever its cache does) */
export function liveCacheVolumes(isvc: InferenceService): CacheVolume[] {
  const predictor = (isvc.spec?.predictor ?? {}) as {
    volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>;
    containers?: Array<{ volumeMounts?: Array<{ name: string; mountPath: string }> }>;
  };
  const mounts = predictor.containers?.[0]?.volumeMounts ?? [];
  return (predictor.volumes ?? []).flatMap((v) => {
    const m = mounts.find((x) => x.name === v.name);
    return v.persistentVolumeClaim && m
      ? [{ name: v.name, claimName: v.persistentVolumeClaim.claimName, mountPath: m.mountPath }]
      : [];
  });
}

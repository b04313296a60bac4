// The AIMService planner. Pure: from the service, its resolved runtime config and what the fetch observed
// to the desired children. `desireService` computes them once per reconcile (the engine's composeState),
// and planResources, component health and status all read that one result.

import type { KubeObject } from '@modelplane/runtime/meta';
import { ORIGIN_AUTO_GENERATED, ORIGIN_LABEL } from '../../../apis/aim/index.ts';
import { configStorageClass } from '../../../common/model-storage/index.ts';
import { mergeRuntimeConfig, type RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';
import { type FetchResult, type ObjectRef, PlanResult } from '../../../engine/index.ts';
import { AIMModels, type AIMService, type AIMTemplateCache, type AnyTemplate } from '../shared/kinds.ts';
import type { AimRuntimeConfig } from '../shared/runtime-config-source.ts';
import { buildServiceCache, type CacheObservation, readyTemplate, type TemplateObservation } from './catalog.ts';
import { type HTTPRoute, HTTPRoutes, type InferenceService } from './children.ts';
import { buildCustomModel, inheritedModelSpec } from './custom-model.ts';
import { buildInferenceService, type CacheVolume, type TemplateInput } from './inference-service.ts';
import { type ModelObservation, servedImage } from './model.ts';
import { autoModelName, inferenceServiceName, MANAGED_BY, MANAGED_BY_LABEL } from './names.ts';
import { planRouting, type RoutingPlan } from './routing.ts';

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

/** the inline AIMService values over the resolved config, field by field (DESIGN.md) */
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
  const image = servedImage(fetched.model);
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
  const gate = inferenceServiceGate(fetched);
  const template = fetched.template ? readyTemplate(fetched.template) : undefined;
  // a template deleted under the running InferenceService: it keeps the configuration it was built with
  const frozen = fetched.template?.kind === 'retained';
  if (image && gate.create && !frozen) {
    desired.inferenceService = buildInferenceService({
      service,
      name: isvcName,
      image,
      effective,
      ...(model?.ok() ? { modelName: model.value.metadata.name ?? '' } : {}),
      ...(template ? { template: templateInput(template) } : {}),
      cacheVolumes: gate.volumes,
    });
  }
  if (template && fetched.cache?.cache.isNotFound()) {
    desired.cache = {
      object: buildServiceCache(service, template, fetched.cache!, configStorageClass(effective)),
      owned: fetched.cache!.mode === 'Dedicated',
    };
  }
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
  // an invalid route (template, gateway, timeout) is neither created nor re-applied: the last good route,
  // if there is one, keeps serving until the user fixes the field the condition names
  return plan;
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
 * May the InferenceService be applied, and with which cache volumes? Created only once the template (if
 * any) is Ready and its cache (if it needs one) is Ready; an existing one keeps being updated, and keeps
 * the PVC volumes it has while its cache is briefly gone.
 */
export function inferenceServiceGate(fetched: ServiceFetch): { create: boolean; volumes: CacheVolume[] } {
  const exists = fetched.inferenceService.ok();
  const t = fetched.template;
  const templateOk = !t || t.kind === 'none' || readyTemplate(t) !== undefined;
  const cache = fetched.cache;
  const ready = cache?.cache.ok() && cache.cache.value.status?.status === 'Ready' ? cache.cache.value : undefined;
  const cacheReady = ready !== undefined;
  const volumes = ready ? cacheVolumes(ready) : exists ? liveCacheVolumes(fetched.inferenceService.value!) : [];
  if (exists) return { create: true, volumes };
  // a custom model's InferenceService waits for its model (and so for the template and cache it brings)
  const m = fetched.model;
  const modelOk = m.mode.kind !== 'custom' || m.model?.ok() === true;
  return { create: modelOk && templateOk && (!cache || cacheReady), volumes };
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

/** the PVC volumes a live InferenceService mounts (kept while its cache is recreated) */
function liveCacheVolumes(isvc: InferenceService): CacheVolume[] {
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

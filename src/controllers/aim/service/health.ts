// Component health of an AIMService: RuntimeConfig, Model, InferenceService, Routing and HTTPRoute. Pure.
// Problems a changed spec or config must fix (a rejected route, an invalid path template, a predictor
// KServe refuses) are reported as error *states* without a blocking error, because an InvalidSpec error
// would stop every apply, including the one that fixes it (docs/controllers.md §9). They still set the
// component condition False and make the service Degraded or Failed.
import { missingDownstreamError } from '../../../engine/errors.ts';
import type { ComponentHealth, FetchResult, HealthReport, KubeCondition, MaybeHealth } from '../../../engine/index.ts';
import type { AIMService } from '../shared/kinds.ts';
import { podProblem } from '../shared/pod-health.ts';
import { type AimRuntimeConfig, runtimeConfigHealth } from '../shared/runtime-config-source.ts';
import { cacheHealth, templateHealth } from './catalog.ts';
import { GATEWAY_API_GROUP, type HTTPRoute, type InferenceService } from './children.ts';
import { PREDICTOR_PORT } from './inference-service.ts';
import { modelHealth } from './model.ts';
import type { ServiceObservation } from './plan.ts';
import { replicaPlan } from './replicas.ts';
import { servedPath } from './routing.ts';
import { runningCacheHealth, runningModelHealth, runningTemplateHealth } from './running.ts';

export function serviceHealth(
  obs: ServiceObservation,
  runtimeConfig: FetchResult<AimRuntimeConfig> | undefined,
  service?: AIMService,
): MaybeHealth[] {
  return [
    runtimeConfigHealth(runtimeConfig),
    ...chainHealth(obs),
    inferenceServiceHealth(obs, service),
    predictorPodsHealth(obs),
    routingHealth(obs),
    httpRouteHealth(obs),
  ];
}

/** Model, Template and Cache: judged for building the InferenceService, or only reported on once it runs */
function chainHealth(obs: ServiceObservation): MaybeHealth[] {
  const r = obs.running;
  if (r) {
    const isvc = obs.inferenceService.ok() ? where(obs.inferenceService.value) : '';
    const canRecreate = Boolean(obs.desired?.cache);
    return [runningModelHealth(r, isvc), runningTemplateHealth(r, isvc), runningCacheHealth(obs.cache, canRecreate)];
  }
  return [
    modelHealth(obs.model),
    obs.template ? templateHealth(obs.template) : undefined,
    cacheHealth(obs.cache, obs.inferenceService.ok()),
  ];
}

function condition(conds: readonly KubeCondition[] | undefined, type: string): KubeCondition | undefined {
  return conds?.find((c) => c.type === type);
}

function where(o: { metadata: { name?: string; namespace?: string } }): string {
  return `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;
}

/** KServe's verdict: Ready=True ⇒ Ready; a spec KServe refuses ⇒ Failed; a model that fails to load ⇒ Degraded */
export function inspectInferenceService(isvc: InferenceService): HealthReport {
  const name = `InferenceService ${where(isvc)}`;
  const status = isvc.status ?? {};
  const generation = isvc.metadata.generation;
  if (generation !== undefined && status.observedGeneration !== undefined && status.observedGeneration < generation) {
    return {
      state: 'Progressing',
      reason: 'InferenceServiceUpdating',
      message: `${name}: waiting for KServe to observe generation ${generation}`,
    };
  }
  const ready = condition(status.conditions, 'Ready');
  if (ready?.status === 'True')
    return {
      state: 'Ready',
      reason: 'InferenceServiceReady',
      message: `${name} is ready${status.url ? ` at ${status.url}` : ''}`,
    };
  const detail = ready?.message ? `: ${ready.message}` : '';
  const transition = status.modelStatus?.transitionStatus;
  if (transition === 'InvalidSpec')
    return {
      state: 'Failed',
      reason: ready?.reason || 'InvalidSpec',
      message: `${name} was rejected by KServe${detail}`,
    };
  if (transition === 'BlockedByFailedLoad') {
    const failure = status.modelStatus?.lastFailureInfo;
    return {
      state: 'Degraded',
      reason: failure?.reason || 'ModelLoadFailed',
      message: `${name}: the model failed to load${failure?.message ? `: ${failure.message}` : detail}`,
    };
  }
  return {
    state: 'Progressing',
    reason: ready?.reason || 'InferenceServiceNotReady',
    message: `${name} is not ready yet${detail}`,
  };
}

function inferenceServiceHealth(obs: ServiceObservation, service?: AIMService): ComponentHealth {
  const h = obs.inferenceService.toDownstreamComponentHealth('InferenceService', inspectInferenceService);
  // not there yet: say why (nothing is served before its chain is ready), not only that it is missing
  const missing = obs.inferenceService.isNotFound() ? (h.errors?.[0] as Error | undefined) : undefined;
  if (missing)
    return {
      ...h,
      errors: [
        missingDownstreamError(
          'ResourceNotReady',
          `${missing.message}: it is created once the model, template and cache are Ready (ModelReady, TemplateReady, CacheReady say what each waits for)`,
          missing,
        ),
      ],
    };
  // a predictor asked to run no pod serves nothing: not Running, whatever KServe says of zero pods
  if (service && obs.inferenceService.ok() && scaledToZero(service))
    return {
      component: 'InferenceService',
      state: 'Pending',
      reason: 'ScaledToZero',
      message: `spec.replicas is 0: InferenceService ${where(obs.inferenceService.value)} runs no pod and serves nothing; set spec.replicas (or minReplicas) to 1 or more to serve`,
      dependencyType: 'Downstream',
    };
  return h;
}

function scaledToZero(service: AIMService): boolean {
  const plan = replicaPlan(service.spec, service.metadata.name ?? '', PREDICTOR_PORT);
  return plan.max === 0;
}

/** what keeps the predictor from becoming ready: the pod, the reason, what to do */
function predictorPodsHealth(obs: ServiceObservation): MaybeHealth {
  if (!obs.inferenceService.ok()) return undefined;
  const where_ = obs.inferenceService.value.metadata;
  const svc = `AIMService ${where_.namespace}/${where_.name}`;
  return podProblem('InferenceServicePods', obs.predictorPods, {
    pullSecrets: `spec.imagePullSecrets of ${svc}`,
    resources: `spec.resources of ${svc}`,
  });
}

/** the route's path: Ready with the path, or why there is no route (named field and cause) */
function routingHealth(obs: ServiceObservation): MaybeHealth {
  const routing = obs.desired?.routing;
  if (!routing || routing.kind === 'disabled') return undefined;
  if (routing.kind === 'route') {
    return {
      component: 'Routing',
      state: 'Ready',
      reason: 'PathResolved',
      message: `route path ${routing.path} (from ${routing.source}) on gateway ${gatewayName(routing.gatewayRef, obs)}`,
    };
  }
  const served = obs.httpRoute.ok() ? servedPath(obs.httpRoute.value) : undefined;
  const kept = obs.httpRoute.ok()
    ? `; the existing HTTPRoute ${where(obs.httpRoute.value)} is kept and still routes the last valid path ${served ?? '(none)'} (status.routing.path) until the field is fixed`
    : '; no HTTPRoute is created';
  return { component: 'Routing', state: 'Degraded', reason: routing.reason, message: `${routing.message}${kept}` };
}

function gatewayName(ref: { name: string; namespace?: string | undefined }, obs: ServiceObservation): string {
  const ns = ref.namespace ?? (obs.httpRoute.ok() ? obs.httpRoute.value.metadata.namespace : undefined);
  return ns ? `${ns}/${ref.name}` : ref.name;
}

function httpRouteHealth(obs: ServiceObservation): MaybeHealth {
  const routing = obs.desired?.routing;
  // routing off: the route is being deleted; no route planned and none there: nothing to report
  if (routing?.kind === 'disabled') return undefined;
  if (routing?.kind !== 'route' && !obs.httpRoute.ok()) return undefined;
  const gatewayField = routing?.kind === 'route' ? routing.gatewayField : 'spec.routing.gatewayRef';
  return obs.httpRoute.toDownstreamComponentHealth('HTTPRoute', (route) => inspectHTTPRoute(route, gatewayField));
}

interface ParentRefLike {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

function sameParent(a: ParentRefLike, b: ParentRefLike, routeNamespace: string): boolean {
  const norm = (r: ParentRefLike) =>
    [
      r.group ?? GATEWAY_API_GROUP,
      r.kind ?? 'Gateway',
      r.namespace ?? routeNamespace,
      r.name,
      r.sectionName ?? '',
      r.port ?? '',
    ].join('|');
  return norm(a) === norm(b);
}

/**
 * HTTPRouteReady from the gateway's verdict on our parentRef: Accepted=True ⇒ Ready (Progressing while
 * the backend Service does not resolve yet); Accepted=False ⇒ Degraded with the gateway's reason and a
 * message naming the gatewayRef field; no verdict for the current generation ⇒ Progressing.
 */
export function inspectHTTPRoute(route: HTTPRoute, gatewayField: string): HealthReport {
  const name = `HTTPRoute ${where(route)}`;
  const ns = route.metadata.namespace ?? '';
  const ours = route.spec?.parentRefs?.[0] as ParentRefLike | undefined;
  if (!ours) return { state: 'Progressing', reason: 'HTTPRoutePending', message: `${name} has no parentRef yet` };
  const gateway = `${ours.namespace ?? ns}/${ours.name}`;
  const parent = route.status?.parents?.find((p) => sameParent(p.parentRef as ParentRefLike, ours, ns));
  const generation = route.metadata.generation;
  const current = (c: KubeCondition | undefined) =>
    c && !(generation !== undefined && c.observedGeneration !== undefined && c.observedGeneration < generation)
      ? c
      : undefined;
  const accepted = current(condition(parent?.conditions, 'Accepted'));
  const resolved = current(condition(parent?.conditions, 'ResolvedRefs'));
  if (accepted?.status === 'True') {
    if (resolved?.status === 'False') {
      return {
        state: 'Progressing',
        reason: resolved.reason || 'BackendNotFound',
        message:
          `${name} is accepted by Gateway ${gateway}, but its backend does not resolve yet: ${resolved.message ?? ''}`.trim(),
      };
    }
    return { state: 'Ready', reason: 'HTTPRouteAccepted', message: `${name} is accepted by Gateway ${gateway}` };
  }
  if (accepted?.status === 'False') {
    const cause = `${accepted.reason ?? 'NotAccepted'}${accepted.message ? `: ${accepted.message}` : ''}`;
    return {
      state: 'Degraded',
      reason: accepted.reason || 'HTTPRouteNotAccepted',
      message: `${name} is not accepted by Gateway ${gateway} (${gatewayField}): ${cause}`,
    };
  }
  return {
    state: 'Progressing',
    reason: 'HTTPRoutePending',
    message: `${name} is waiting for Gateway ${gateway} to accept it`,
  };
}

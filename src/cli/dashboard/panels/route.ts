// The AIMService route panel: where traffic is routed (status.routing.path) and how that path was rendered:
// the runtime config it resolved, the template and where it came from, each placeholder's value. Pure;
// computed with the controller's own resolution and routing functions (docs/aim.md).

import { renderPathTemplate } from '../../../common/path-template/index.ts';
import { type RuntimeConfigObject, resolveRuntimeConfig } from '../../../common/runtime-config/index.ts';
import { effectiveConfig, inferenceServiceName, planRouting } from '../../../controllers/aim/service/index.ts';
import type { AIMClusterRuntimeConfig, AIMRuntimeConfig, AIMService } from '../../../controllers/aim/shared/kinds.ts';
import type { RoutePanel } from '../types.ts';

const PLACEHOLDER = /\{([^{}]*)\}/g;

export interface RuntimeConfigs {
  /** the AIMRuntimeConfig of the service's runtimeConfigName in its namespace, if any */
  namespaced?: AIMRuntimeConfig;
  /** the AIMClusterRuntimeConfig of that name, if any */
  cluster?: AIMClusterRuntimeConfig;
}

/** each `{expression}` of the template and what it rendered to for this service */
function placeholdersOf(template: string, service: AIMService): RoutePanel['placeholders'] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => {
    const r = renderPathTemplate(`{${m[1]}}`, service, 'placeholder');
    return r.ok
      ? { expression: m[1]!, value: r.path.replace(/^\//, '') }
      : { expression: m[1]!, error: r.error.message };
  });
}

export function routePanel(service: AIMService, configs: RuntimeConfigs): RoutePanel {
  const statusPath = (service.status as { routing?: { path?: string } } | undefined)?.routing?.path;
  const resolution = resolveRuntimeConfig({
    ...(service.spec.runtimeConfigName ? { runtimeConfigName: service.spec.runtimeConfigName } : {}),
    ...(service.metadata.namespace ? { namespace: service.metadata.namespace } : {}),
    ...(configs.namespaced ? { namespaced: configs.namespaced as RuntimeConfigObject } : {}),
    ...(configs.cluster ? { cluster: configs.cluster as RuntimeConfigObject } : {}),
  });
  const base = { kind: 'route' as const, ...(statusPath ? { statusPath } : {}) };
  if (resolution.outcome === 'ConfigNotFound')
    return { ...base, enabled: false, placeholders: [], problem: resolution.message };
  const runtimeConfig =
    resolution.outcome === 'Resolved'
      ? `${resolution.ref.kind} ${resolution.ref.namespace ? `${resolution.ref.namespace}/` : ''}${resolution.ref.name}`
      : `no runtime config (${resolution.message})`;
  const effective = effectiveConfig(resolution.spec, service);
  const template = service.spec.routing?.pathTemplate || resolution.spec.routing?.pathTemplate || undefined;
  const plan = planRouting({
    service,
    runtimeConfig: resolution.spec,
    runtimeConfigName: runtimeConfig,
    effective,
    isvcName: inferenceServiceName(service.metadata.name ?? ''),
  });
  const placeholders = template ? placeholdersOf(template, service) : [];
  const common = { ...base, runtimeConfig, ...(template ? { template } : {}), placeholders };
  if (plan.kind === 'disabled') return { ...common, enabled: false, problem: `routing is off (${plan.field})` };
  if (plan.kind === 'invalid') return { ...common, enabled: true, problem: plan.message };
  const gw = plan.gatewayRef;
  return {
    ...common,
    enabled: true,
    source: plan.source,
    renderedPath: plan.path,
    gateway: `${gw.namespace ? `${gw.namespace}/` : ''}${gw.name}`,
  };
}

// An AIMService's template and template cache (docs/aim.md, "Template selection" and "Caches and
// artifacts"). The template is the one spec.template.name names (namespace first, then cluster), else the
// one selection picks among the model's templates; a model with no templates at all is served without one.
// A Ready template with model sources needs a cache: a Shared one in the namespace (reused, created
// without owner) or a Dedicated one owned by the service; the InferenceService waits for it to be Ready.

import type { KubeObject } from '@modelplane/runtime/meta';
import { derivedName } from '../../../common/model-storage/index.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { ComponentHealth } from '../../../engine/health.ts';
import type { MaybeHealth } from '../../../engine/types.ts';
import type { SelectionResult, TemplateCandidate } from '../catalog/selection.ts';
import { type AIMService, type AIMTemplateCache, AIMTemplateCaches, type AnyTemplate } from '../shared/kinds.ts';

export type TemplateObservation =
  | { kind: 'none' }
  | { kind: 'template'; template: FetchResult<AnyTemplate>; field: 'spec.template.name' | 'selection' }
  | { kind: 'unselected'; selection: Exclude<SelectionResult, { kind: 'selected' }> };

export interface CacheObservation {
  mode: 'Shared' | 'Dedicated';
  /** the cache in use, or NotFound: create `name` */
  cache: FetchResult<AIMTemplateCache>;
  name: string;
}

/** Dedicated, or Shared (the default and what the legacy Always/Auto mean); Never meant Dedicated */
export function cachingMode(service: AIMService): 'Shared' | 'Dedicated' {
  const m = service.spec.caching?.mode;
  return m === 'Dedicated' || m === 'Never' ? 'Dedicated' : 'Shared';
}

export const isTemplateReady = (t: AnyTemplate) => t.status?.status === 'Ready';

export function candidateOf(t: AnyTemplate): TemplateCandidate {
  const meta = t.status?.profile?.metadata;
  return {
    name: t.metadata.name ?? '',
    scope: t.metadata.namespace ? 'Namespace' : 'Cluster',
    status: t.status?.status,
    type: meta?.type ?? t.spec.type,
    gpuModel: t.spec.hardware?.gpu?.model ?? meta?.gpu,
    gpuCount: t.spec.hardware?.gpu?.requests ?? meta?.gpuCount,
    metric: meta?.metric ?? t.spec.metric,
    precision: meta?.precision ?? t.spec.precision,
  };
}

/** the template the service runs with, once it is Ready */
export function readyTemplate(obs: TemplateObservation): AnyTemplate | undefined {
  return obs.kind === 'template' && obs.template.ok() && isTemplateReady(obs.template.value)
    ? obs.template.value
    : undefined;
}

export function sharedCacheName(templateName: string, namespace: string): string {
  return derivedName([templateName], [namespace, 'shared']);
}

export function dedicatedCacheName(templateName: string, service: AIMService): string {
  return derivedName(
    [templateName, service.metadata.name ?? ''],
    [service.metadata.uid ?? service.metadata.name ?? ''],
  );
}

/** the AIMTemplateCache to create for the service's template */
export function buildServiceCache(
  service: AIMService,
  template: AnyTemplate,
  obs: CacheObservation,
  storageClassName: string | undefined,
): KubeObject {
  const env = [
    ...((template.spec as { caching?: { env?: Array<{ name: string; value?: string }> } }).caching?.env ?? []),
    ...(service.spec.env ?? []),
  ];
  return {
    apiVersion: AIMTemplateCaches.apiVersion,
    kind: AIMTemplateCaches.kind,
    metadata: {
      name: obs.name,
      namespace: service.metadata.namespace ?? '',
      labels: { 'aim.eai.amd.com/service': (service.metadata.name ?? '').slice(0, 63) },
    },
    spec: {
      templateName: template.metadata.name ?? '',
      templateScope: template.metadata.namespace ? 'Namespace' : 'Cluster',
      mode: obs.mode,
      ...(env.length ? { env } : {}),
      ...(storageClassName ? { storageClassName } : {}),
      ...(service.spec.runtimeConfigName ? { runtimeConfigName: service.spec.runtimeConfigName } : {}),
    },
  };
}

export function templateHealth(obs: TemplateObservation): MaybeHealth {
  if (obs.kind === 'none') return undefined;
  if (obs.kind === 'unselected') {
    const s = obs.selection;
    if (s.kind === 'ambiguous')
      return {
        component: 'Template',
        state: 'Pending',
        reason: s.reason,
        message: `spec.template: ${s.message}`,
        dependencyType: 'Upstream',
        needsAction: true,
      };
    return {
      component: 'Template',
      state: 'Pending',
      reason: s.reason === 'TemplateNotReady' ? 'TemplateNotReady' : 'TemplateNotFound',
      message: `spec.template: ${s.message}`,
      dependencyType: 'Upstream',
    };
  }
  return obs.template.toUpstreamComponentHealth('Template', (t) => {
    const what = `${t.kind} ${t.metadata.namespace ? `${t.metadata.namespace}/` : ''}${t.metadata.name}${obs.field === 'selection' ? ' (selected)' : ''}`;
    const s = t.status?.status;
    if (s === 'Ready') return { state: 'Ready', reason: 'Resolved', message: `${what} is Ready` };
    if (s === 'NotAvailable')
      return {
        state: 'NotAvailable',
        reason: 'TemplateNotReady',
        message: `${what} is NotAvailable: no node has its GPU`,
      };
    if (s === 'Failed' || s === 'Degraded')
      return { state: 'Failed', reason: 'TemplateNotReady', message: `${what} is ${s}` };
    return {
      state: 'Progressing',
      reason: 'TemplateNotReady',
      message: `waiting for ${what} to be Ready (status ${s ?? 'not reported yet'})`,
    };
  });
}

export function cacheHealth(cache: CacheObservation | undefined, inferenceServiceExists: boolean): MaybeHealth {
  if (!cache) return undefined;
  const c: ComponentHealth = { component: 'Cache', dependencyType: 'Downstream' } as ComponentHealth;
  if (!cache.cache.ok()) {
    if (inferenceServiceExists)
      return {
        ...c,
        state: 'Degraded',
        reason: cache.mode === 'Shared' ? 'CacheLost' : 'CacheCreating',
        message: `AIMTemplateCache ${cache.name} is gone; recreating it (the running InferenceService keeps its volumes)`,
      };
    return {
      ...c,
      state: 'Progressing',
      reason: 'CacheCreating',
      message: `creating ${cache.mode} AIMTemplateCache ${cache.name}`,
    };
  }
  const s = cache.cache.value.status?.status;
  if (s === 'Ready')
    return { ...c, state: 'Ready', reason: 'CacheReady', message: `AIMTemplateCache ${cache.name} is Ready` };
  if (s === 'Failed')
    return {
      ...c,
      state: 'Failed',
      reason: 'CacheFailed',
      message: `AIMTemplateCache ${cache.name} failed; its artifacts are retried`,
    };
  return {
    ...c,
    state: 'Progressing',
    reason: 'CacheNotReady',
    message: `waiting for AIMTemplateCache ${cache.name} (status ${s ?? 'Pending'}) to download the model`,
  };
}

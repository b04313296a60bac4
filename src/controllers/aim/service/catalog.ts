// An AIMService's template and template cache (docs/aim.md, "Template selection" and "Caches and
// artifacts"). The template is the one spec.template.name names (namespace first, then cluster), else the
// one selection picks among the model's templates; a model with no templates at all is served without one.
// A Ready template with model sources needs a cache: a Shared one in the namespace (reused, created
// without owner) or a Dedicated one owned by the service; the InferenceService waits for it to be Ready.

import type { KubeObject } from '@modelplane/runtime/meta';
import { derivedName } from '../../../common/model-storage/index.ts';
import {
  type ComponentHealth,
  FetchResult,
  fetch,
  type MaybeHealth,
  missingUpstreamError,
  type ObjectReader,
} from '../../../engine/index.ts';
import { CACHE_TEMPLATE_INDEX, cacheTemplateIndex } from '../cache/plan.ts';
import { clusterGpus } from '../catalog/gpu.ts';
import { type SelectionResult, selectTemplate, type TemplateCandidate } from '../catalog/selection.ts';
import { TEMPLATE_MODEL_INDEX, templateModelIndex } from '../model/templates.ts';
import { listIndexed } from '../shared/indexed-list.ts';
import {
  AIMClusterServiceTemplates,
  type AIMService,
  AIMServiceTemplates,
  type AIMTemplateCache,
  AIMTemplateCaches,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { Nodes } from '../template/fetch.ts';

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

async function namedTemplate(reader: ObjectReader, name: string, namespace: string): Promise<FetchResult<AnyTemplate>> {
  const own = await fetch<AnyTemplate>(reader, AIMServiceTemplates, name, namespace);
  if (own.ok() || !own.isNotFound()) return own;
  const cluster = await fetch<AnyTemplate>(reader, AIMClusterServiceTemplates, name);
  if (cluster.ok() || !cluster.isNotFound()) return cluster;
  return FetchResult.failure(
    missingUpstreamError(
      'TemplateNotFound',
      `spec.template.name: no AIMServiceTemplate ${namespace}/${name} and no AIMClusterServiceTemplate ${name} exist`,
    ),
    { kind: 'AIMServiceTemplate', name, namespace },
  );
}

/**
 * The named template, or the one selection picks among the model's templates. `templatesExpected: false`
 * (the model reports that it has none to create) serves a model without templates from its image.
 */
export async function fetchServiceTemplate(
  service: AIMService,
  reader: ObjectReader,
  modelName: string | undefined,
  templatesExpected = true,
): Promise<TemplateObservation> {
  const ns = service.metadata.namespace ?? '';
  const named = service.spec.template?.name;
  if (named) return { kind: 'template', template: await namedTemplate(reader, named, ns), field: 'spec.template.name' };
  if (!modelName) return { kind: 'none' };
  const index = { name: TEMPLATE_MODEL_INDEX, fn: templateModelIndex, value: modelName };
  const [own, cluster] = await Promise.all([
    listIndexed(reader, AIMServiceTemplates, index, ns),
    listIndexed(reader, AIMClusterServiceTemplates, index),
  ]);
  const all: AnyTemplate[] = [...own, ...cluster];
  // a model that expects no template (none recommended, templates off) is served as it is; otherwise none
  // yet is TemplateNotFound, reported by selection
  if (all.length === 0 && !templatesExpected) return { kind: 'none' };
  const gpus = new Set(clusterGpus(await reader.list(Nodes)).keys());
  const o = service.spec.overrides;
  const selection = selectTemplate(all.map(candidateOf), {
    allowUnoptimized: service.spec.template?.allowUnoptimized,
    overrides: o
      ? {
          metric: o.metric,
          precision: o.precision,
          gpuModel: o.hardware?.gpu?.model,
          gpuCount: o.hardware?.gpu?.requests,
        }
      : undefined,
    clusterGpus: gpus,
  });
  if (selection.kind !== 'selected') return { kind: 'unselected', selection };
  const chosen = all.find(
    (t) =>
      (t.metadata.name ?? '') === selection.candidate.name &&
      (t.metadata.namespace ? 'Namespace' : 'Cluster') === selection.candidate.scope,
  )!;
  return {
    kind: 'template',
    template: FetchResult.of(chosen, { kind: chosen.kind, name: chosen.metadata.name ?? '' }),
    field: 'selection',
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

const CACHE_RANK: Readonly<Record<string, number>> = { Ready: 0, Progressing: 1, Pending: 2 };

export async function fetchServiceCache(
  service: AIMService,
  reader: ObjectReader,
  template: AnyTemplate | undefined,
): Promise<CacheObservation | undefined> {
  if (!template?.status?.modelSources?.length) return undefined;
  return fetchCacheForTemplate(service, reader, template.metadata.name ?? '');
}

/** the cache the service uses for template `tname`: its Dedicated one, or the healthiest Shared one */
export async function fetchCacheForTemplate(
  service: AIMService,
  reader: ObjectReader,
  tname: string,
): Promise<CacheObservation> {
  const ns = service.metadata.namespace ?? '';
  const mode = cachingMode(service);
  if (mode === 'Dedicated') {
    const name = dedicatedCacheName(tname, service);
    return { mode, name, cache: await fetch(reader, AIMTemplateCaches, name, ns) };
  }
  const name = sharedCacheName(tname, ns);
  const shared = (
    await listIndexed(
      reader,
      AIMTemplateCaches,
      { name: CACHE_TEMPLATE_INDEX, fn: cacheTemplateIndex, value: tname },
      ns,
    )
  ).filter((c) => (c.spec.mode ?? 'Shared') === 'Shared' && !c.metadata.deletionTimestamp);
  shared.sort(
    (a, b) =>
      (CACHE_RANK[a.status?.status ?? ''] ?? 9) - (CACHE_RANK[b.status?.status ?? ''] ?? 9) ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const best = shared[0];
  return {
    mode,
    name: best?.metadata.name ?? name,
    cache: best
      ? FetchResult.of(best, { kind: 'AIMTemplateCache', name: best.metadata.name ?? '', namespace: ns })
      : FetchResult.notFound({ kind: 'AIMTemplateCache', name, namespace: ns }),
  };
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

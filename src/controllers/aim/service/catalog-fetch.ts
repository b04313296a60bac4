// The fetch side of an AIMService's template and cache (docs/aim.md, "Template selection" and "Caches and
// artifacts"): reading the named or selected template and the cache the service uses through the reader the
// pipeline passes in. The pure parts (names, health, the cache to build) are in catalog.ts.

import { missingUpstreamError } from '../../../engine/errors.ts';
import { FetchResult, fetch, type ObjectReader } from '../../../engine/fetch-result.ts';
import { CACHE_TEMPLATE_INDEX, cacheTemplateIndex } from '../cache/plan.ts';
import { clusterGpus } from '../catalog/gpu.ts';
import { selectTemplate } from '../catalog/selection.ts';
import { TEMPLATE_MODEL_INDEX, templateModelIndex } from '../model/templates.ts';
import { listIndexed } from '../shared/indexed-list.ts';
import {
  AIMClusterServiceTemplates,
  type AIMService,
  AIMServiceTemplates,
  AIMTemplateCaches,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { Nodes } from '../template/fetch.ts';
import {
  type CacheObservation,
  cachingMode,
  candidateOf,
  dedicatedCacheName,
  sharedCacheName,
  type TemplateObservation,
} from './catalog.ts';

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

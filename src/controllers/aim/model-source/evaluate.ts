// What a model source's registry listing means (docs/aim.md, "Model sources"), pure: per filter, the
// images it selects or why it failed; across filters, the images the source offers (deduplicated, by
// repository, newest tag first), the ones that are new, and how many of those `maxModels` still allows.
// Models are only ever added: one the registry no longer lists keeps existing, and counts towards the limit.
import type { AIMClusterModelSource } from '../shared/kinds.ts';
import {
  compareTags,
  DOCKER_HUB,
  filterTakesRepository,
  filterTakesTag,
  imageUri,
  type ModelImage,
  type ParsedFilter,
  parseFilter,
} from './filters.ts';

export type RegistryFailureKind = 'NotFound' | 'Auth' | 'Unavailable' | 'Invalid';

/** one registry answer: the value, or why there is none */
export type Listed<T> = { ok: true; value: T } | { ok: false; kind: RegistryFailureKind; message: string };

/** what one sync read from the registries (fetch.ts); keys: catalogKey(registry, prefix), and `registry/repository` */
export interface RegistryListing {
  catalogs: Readonly<Record<string, Listed<string[]>>>;
  tags: Readonly<Record<string, Listed<string[]>>>;
}

export interface FilterFailure {
  kind: RegistryFailureKind;
  message: string;
}

export interface FilterOutcome {
  filter: ParsedFilter;
  images: ModelImage[];
  failures: FilterFailure[];
}

/** what the source's models look like in the cluster: its own (by label) and every image some model has */
export interface ExistingModels {
  own: ReadonlyArray<{ name: string; image: string }>;
  /** images that already have an AIMClusterModel not created by this source (left to that model) */
  foreignImages: ReadonlySet<string>;
}

export interface SourceEvaluation {
  filters: FilterOutcome[];
  /** every image the filters select, deduplicated, in creation order */
  offered: ModelImage[];
  /** offered, not yet a model, within maxModels: create these now */
  create: ModelImage[];
  /** offered and already one of ours: applied again (pull secrets follow the source) */
  keep: ModelImage[];
  /** offered, new, but over maxModels */
  overLimit: number;
  /** this source's models after this sync */
  modelCount: number;
  maxModels: number;
}

export const DEFAULT_MAX_MODELS = 100;

/** the filters parsed against the source's registry and global versions */
export function parseSourceFilters(source: AIMClusterModelSource): ParsedFilter[] {
  const registry = source.spec.registry ?? DOCKER_HUB;
  return (source.spec.filters ?? []).map((f, i) => parseFilter(f, i, registry, source.spec.versions));
}

const repoKey = (registry: string, repository: string) => `${registry}/${repository}`;

/** the literal start of a wildcard pattern (`amd/aim-*` → `amd/aim-`): the registry is asked for those only */
const patternPrefix = (f: ParsedFilter) => f.repository.slice(0, f.repository.indexOf('*'));

/** the key of one catalog listing: a registry and the prefix its repositories must start with */
export const catalogKey = (registry: string, prefix: string) => `${registry}|${prefix}`;

/** the repositories whose tags a sync must list, given the catalogs it read (fetch.ts asks this) */
export function repositoriesToList(
  filters: readonly ParsedFilter[],
  catalogs: RegistryListing['catalogs'],
): Array<{ registry: string; repository: string }> {
  const out = new Map<string, { registry: string; repository: string }>();
  for (const f of filters) {
    if (f.problem) continue;
    const catalog = f.wildcard ? catalogs[catalogKey(f.registry, patternPrefix(f))] : undefined;
    const repos = f.wildcard ? (catalog?.ok ? catalog.value : []) : [f.repository];
    for (const repository of repos)
      if (filterTakesRepository(f, repository))
        out.set(repoKey(f.registry, repository), { registry: f.registry, repository });
  }
  return [...out.values()];
}

/** the catalogs a sync must read: a registry and a prefix per valid wildcard filter */
export function catalogsToList(filters: readonly ParsedFilter[]): Array<{ registry: string; prefix: string }> {
  const out = new Map<string, { registry: string; prefix: string }>();
  for (const f of filters)
    if (!f.problem && f.wildcard)
      out.set(catalogKey(f.registry, patternPrefix(f)), { registry: f.registry, prefix: patternPrefix(f) });
  return [...out.values()];
}

function evaluateFilter(f: ParsedFilter, listing: RegistryListing): FilterOutcome {
  const out: FilterOutcome = { filter: f, images: [], failures: [] };
  if (f.problem) {
    out.failures.push({ kind: 'Invalid', message: f.problem });
    return out;
  }
  let repositories = [f.repository];
  if (f.wildcard) {
    const catalog = listing.catalogs[catalogKey(f.registry, patternPrefix(f))];
    if (!catalog?.ok) {
      const why = catalog ? catalog.message : 'not listed yet';
      out.failures.push({
        kind: catalog?.ok === false ? catalog.kind : 'Unavailable',
        message: `${f.field}.image: listing the repositories of ${f.registry}: ${why}`,
      });
      return out;
    }
    repositories = catalog.value;
  }
  for (const repository of repositories) {
    if (!filterTakesRepository(f, repository)) continue;
    const tags = listing.tags[repoKey(f.registry, repository)];
    if (!tags?.ok) {
      out.failures.push({
        kind: tags?.ok === false ? tags.kind : 'Unavailable',
        message: `${f.field}.image: listing the tags of ${repoKey(f.registry, repository)}: ${tags?.ok === false ? tags.message : 'not listed yet'}`,
      });
      continue;
    }
    const sorted = [...tags.value].sort(compareTags);
    for (const tag of sorted) if (filterTakesTag(f, tag)) out.images.push({ registry: f.registry, repository, tag });
    // a `repository:tag` whose tag the registry does not have selects nothing: say so, with what it has
    if (f.tag !== undefined && !sorted.includes(f.tag))
      out.failures.push({
        kind: 'NotFound',
        message: `${f.field}.image: ${repoKey(f.registry, repository)} has no tag "${f.tag}" (it has ${sorted.length === 0 ? 'no tags' : `${sorted.slice(0, 5).join(', ')}${sorted.length > 5 ? `, … ${sorted.length} in all` : ''}`}); fix the tag or drop it to take every version`,
      });
  }
  return out;
}

/** everything a planner, the health and the status need, from the source, its listing and the cluster's models */
export function evaluateSource(
  source: AIMClusterModelSource,
  listing: RegistryListing,
  existing: ExistingModels,
): SourceEvaluation {
  const filters = parseSourceFilters(source).map((f) => evaluateFilter(f, listing));
  const byUri = new Map<string, ModelImage>();
  for (const o of filters) for (const img of o.images) if (!byUri.has(imageUri(img))) byUri.set(imageUri(img), img);
  const offered = [...byUri.values()].sort(
    (a, b) =>
      a.registry.localeCompare(b.registry) || a.repository.localeCompare(b.repository) || compareTags(a.tag, b.tag),
  );
  const ownImages = new Set(existing.own.map((m) => m.image));
  const keep = offered.filter((i) => ownImages.has(imageUri(i)));
  const fresh = offered.filter((i) => !ownImages.has(imageUri(i)) && !existing.foreignImages.has(imageUri(i)));
  const maxModels = source.spec.maxModels ?? DEFAULT_MAX_MODELS;
  const room = Math.max(0, maxModels - existing.own.length);
  const create = fresh.slice(0, room);
  return {
    filters,
    offered,
    create,
    keep,
    overLimit: fresh.length - create.length,
    modelCount: existing.own.length + create.length,
    maxModels,
  };
}

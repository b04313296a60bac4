// The model source's reads (docs/aim.md, "Model sources"): the cluster's AIMClusterModels from the cache and,
// once per sync interval, the registry listing: the catalog of each registry a wildcard filter searches,
// then the tags of every repository some filter takes. The listing is remembered per source (name, uid and
// generation) until the interval is over, so the events of the models it creates cost no registry calls;
// a spec change or a restart lists again at once.
import { parseGoDuration } from '@modelplane/apimachinery';
import { type ImageRegistry, type RegistryAuth, RegistryError } from '@modelplane/runtime/registry';
import type { Clock, ObjectReader } from '../../../engine/index.ts';
import { type AIMClusterModel, type AIMClusterModelSource, AIMClusterModels } from '../shared/kinds.ts';
import {
  catalogKey,
  catalogsToList,
  type ExistingModels,
  type Listed,
  parseSourceFilters,
  type RegistryListing,
  repositoriesToList,
} from './evaluate.ts';
import { MODEL_SOURCE_LABEL, sourceLabelValue } from './plan.ts';

export const DEFAULT_SYNC_INTERVAL_MS = 3_600_000;
/** a sync with failures looks again sooner than the interval (never later than it) */
export const FAILED_SYNC_RETRY_MS = 60_000;
/** registry calls in flight at once for one source */
const LIST_CONCURRENCY = 8;

export interface ModelSourceFetch {
  listing: RegistryListing;
  /** when `listing` was read (ms since the epoch) */
  syncedAt: number;
  /** when to list again, from now */
  nextSyncInMs: number;
  existing: ExistingModels;
}

/** spec.syncInterval in ms (the CRD's pattern already admits only Go durations; a zero is the default) */
export function syncIntervalMs(source: AIMClusterModelSource): number {
  const parsed = parseGoDuration(source.spec.syncInterval ?? '1h');
  if ('error' in parsed || parsed.ns <= 0n) return DEFAULT_SYNC_INTERVAL_MS;
  return Math.max(1_000, Number(parsed.ns / 1_000_000n));
}

async function listed<T>(call: () => Promise<T>): Promise<Listed<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, kind: err instanceof RegistryError ? err.kind : 'Unavailable', message };
  }
}

async function inPool<T>(items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** one sync's registry reads; failures are recorded in the listing, never thrown */
export async function listRegistry(
  source: AIMClusterModelSource,
  registry: ImageRegistry | undefined,
  auth: RegistryAuth,
): Promise<RegistryListing> {
  const filters = parseSourceFilters(source);
  const none = (): Promise<never> =>
    Promise.reject(new RegistryError('Unavailable', 'this operator process has no registry client configured'));
  const catalogs: Record<string, Listed<string[]>> = {};
  for (const { registry: host, prefix } of catalogsToList(filters))
    catalogs[catalogKey(host, prefix)] = await listed(() =>
      registry ? registry.listRepositories(host, auth, prefix) : none(),
    );
  const tags: Record<string, Listed<string[]>> = {};
  await inPool(repositoriesToList(filters, catalogs), LIST_CONCURRENCY, async ({ registry: host, repository }) => {
    tags[`${host}/${repository}`] = await listed(() => (registry ? registry.listTags(host, repository, auth) : none()));
  });
  return { catalogs, tags };
}

export function existingModels(source: AIMClusterModelSource, models: readonly AIMClusterModel[]): ExistingModels {
  const label = sourceLabelValue(source.metadata.name ?? '');
  const own: Array<{ name: string; image: string }> = [];
  const foreignImages = new Set<string>();
  for (const m of models) {
    if (m.metadata.labels?.[MODEL_SOURCE_LABEL] === label)
      own.push({ name: m.metadata.name ?? '', image: m.spec.image });
    else foreignImages.add(m.spec.image);
  }
  return { own, foreignImages };
}

function hasFailures(listing: RegistryListing): boolean {
  return [...Object.values(listing.catalogs), ...Object.values(listing.tags)].some((l) => !l.ok);
}

interface Remembered {
  uid: string;
  generation: number;
  syncedAt: number;
  listing: RegistryListing;
}

/** the fetch step with its memory of the last listing per source */
export class ModelSourceFetcher {
  private readonly last = new Map<string, Remembered>();

  constructor(
    private readonly registry: ImageRegistry | undefined,
    private readonly operatorNamespace: string,
    private readonly clock: Clock,
  ) {}

  async fetch(source: AIMClusterModelSource, reader: ObjectReader): Promise<ModelSourceFetch> {
    const key = source.metadata.name ?? '';
    const uid = source.metadata.uid ?? '';
    const generation = source.metadata.generation ?? 0;
    const now = this.clock.now();
    const interval = syncIntervalMs(source);
    let memo = this.last.get(key);
    const retryIn = memo && hasFailures(memo.listing) ? Math.min(interval, FAILED_SYNC_RETRY_MS) : interval;
    if (!memo || memo.uid !== uid || memo.generation !== generation || now - memo.syncedAt >= retryIn) {
      const auth: RegistryAuth = {
        pullSecrets: (source.spec.imagePullSecrets ?? []).map((s) => s.name),
        namespace: this.operatorNamespace,
      };
      memo = { uid, generation, syncedAt: now, listing: await listRegistry(source, this.registry, auth) };
      this.last.set(key, memo);
    }
    const nextIn = hasFailures(memo.listing) ? Math.min(interval, FAILED_SYNC_RETRY_MS) : interval;
    const models = await reader.list(AIMClusterModels);
    return {
      listing: memo.listing,
      syncedAt: memo.syncedAt,
      nextSyncInMs: Math.max(1, memo.syncedAt + nextIn - now),
      existing: existingModels(source, models),
    };
  }

  /** a deleted source's memory goes with it */
  forget(name: string): void {
    this.last.delete(name);
  }
}

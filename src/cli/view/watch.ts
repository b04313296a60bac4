// Keeps the rows of the live terminal view current from watches (list+watch through the shared informer
// cache, never polling): every object of modelplane's kinds, plus any other objects the caller names
// (the examples `modelplane dev` applied). Calls `onChange` after each event.
import { Cache, type Informer } from '@modelplane/runtime/cache';
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { discoverModelplaneKinds } from './kinds.ts';
import { placeholderRow, type ResourceRow, rowOf, sortRows } from './rows.ts';

export interface WatchedRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface ResourceWatcherOptions {
  client: KubeClient;
  /** only this namespace (default: all) */
  namespace?: string;
  /** objects to show even when they are not of a modelplane kind; shown as Missing until they exist */
  refs?: readonly WatchedRef[];
  onChange(): void;
  logger: Logger;
}

const refKey = (apiVersion: string, kind: string, namespace: string, name: string) =>
  `${apiVersion}|${kind}|${namespace}|${name}`;

export class ResourceWatcher {
  private readonly cache: Cache;
  private readonly informers: Array<{ informer: Informer; all: boolean }> = [];
  private readonly refs: readonly WatchedRef[];

  private constructor(opts: ResourceWatcherOptions) {
    this.cache = new Cache({
      client: opts.client,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      logger: opts.logger,
    });
    this.refs = opts.refs ?? [];
  }

  static async start(opts: ResourceWatcherOptions): Promise<ResourceWatcher> {
    const w = new ResourceWatcher(opts);
    const kinds = new Map<string, boolean>();
    // a namespace view shows that namespace's objects only, as `modelplane status -n` does
    for (const m of await discoverModelplaneKinds(opts.client))
      if (!opts.namespace || m.namespaced) kinds.set(`${m.apiVersion}|${m.kind}`, true);
    for (const r of w.refs) if (!kinds.has(`${r.apiVersion}|${r.kind}`)) kinds.set(`${r.apiVersion}|${r.kind}`, false);
    w.cache.start();
    for (const [id, all] of kinds) {
      const [apiVersion, kind] = id.split('|') as [string, string];
      const informer = await w.cache.informer(kindRef(apiVersion, kind));
      const notify = () => opts.onChange();
      informer.addHandler({ add: notify, update: notify, delete: notify });
      w.informers.push({ informer, all });
    }
    await w.cache.waitForSync();
    return w;
  }

  rows(): ResourceRow[] {
    const rows: ResourceRow[] = [];
    const seen = new Set<string>();
    const wanted = new Set(this.refs.map((r) => refKey(r.apiVersion, r.kind, r.namespace, r.name)));
    for (const { informer, all } of this.informers) {
      for (const obj of informer.store.list() as KubeObject[]) {
        const key = refKey(
          informer.mapping.apiVersion,
          informer.mapping.kind,
          obj.metadata.namespace ?? '',
          obj.metadata.name ?? '',
        );
        if (!all && !wanted.has(key)) continue;
        seen.add(key);
        rows.push(rowOf({ ...obj, apiVersion: informer.mapping.apiVersion, kind: informer.mapping.kind }));
      }
    }
    for (const r of this.refs)
      if (!seen.has(refKey(r.apiVersion, r.kind, r.namespace, r.name)))
        rows.push(placeholderRow(r, 'Missing', 'not found'));
    return sortRows(rows);
  }

  /** whether every named ref exists and is Ready */
  refsReady(): boolean {
    const ready = new Set(
      this.rows()
        .filter((r) => r.ready)
        .map((r) => `${r.kind}|${r.namespace}|${r.name}`),
    );
    return this.refs.every((r) => ready.has(`${r.kind}|${r.namespace}|${r.name}`));
  }

  stop(): Promise<void> {
    return this.cache.stop();
  }
}

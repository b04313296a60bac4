// The dashboard's view of the cluster: informers (list+watch through the API server, with the user's own
// credentials) over every modelplane kind, the kinds their children usually are, and Events. Changes are
// coalesced and handed to listeners (the browser streams) as keys; nothing here polls.
import { Cache, type Informer } from '@modelplane/runtime/cache';
import { isForbidden, isNoKindMatch, type KubeClient, type ResourceMapping } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { discoverModelplaneKinds, isPrimaryKind } from '../view/kinds.ts';
import { rowKey } from '../view/rows.ts';
import { type AutoscalerHistory, recordAutoscalerPoint } from './panels/autoscaler.ts';
import { summaryOf } from './summary.ts';
import type { KindInfo, ResourceSummary } from './types.ts';

/** kinds modelplane's controllers and providers create as children, watched when served and readable */
export const CHILD_KINDS: ReadonlyArray<[apiVersion: string, kind: string]> = [
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'ReplicaSet'],
  ['v1', 'Pod'],
  ['v1', 'Service'],
  ['v1', 'ConfigMap'],
  ['v1', 'PersistentVolumeClaim'],
  ['batch/v1', 'Job'],
  ['serving.kserve.io/v1beta1', 'InferenceService'],
  ['gateway.networking.k8s.io/v1', 'HTTPRoute'],
  ['gateway.networking.k8s.io/v1', 'Gateway'],
  ['v1', 'Node'],
  ['kaito.sh/v1beta1', 'Workspace'],
  ['nvidia.com/v1alpha1', 'DynamoGraphDeployment'],
  ['ray.io/v1', 'RayService'],
  ['autoscaling/v2', 'HorizontalPodAutoscaler'],
  ['keda.sh/v1alpha1', 'ScaledObject'],
];
const EVENTS: [string, string] = ['v1', 'Event'];

export type Role = 'resource' | 'child' | 'events';

interface Watched {
  mapping: ResourceMapping;
  role: Role;
  informer: Informer<KubeObject>;
}

export interface StateChange {
  upserts: ResourceSummary[];
  removes: string[];
  /** every resource key whose detail (object, children, events) may have changed */
  touched: Set<string>;
}

const groupOf = (apiVersion: string | undefined) =>
  apiVersion?.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

export function keyOf(obj: KubeObject): string {
  return rowKey({
    group: groupOf(obj.apiVersion),
    kind: obj.kind,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
  });
}

export class DashboardState {
  readonly kinds: KindInfo[] = [];
  readonly hidden: string[] = [];
  readonly autoscalerHistory: AutoscalerHistory = new Map();
  private readonly watched: Watched[] = [];
  private readonly listeners = new Set<(c: StateChange) => void>();
  private pending: { upserts: Map<string, KubeObject>; removes: Set<string>; touched: Set<string> } = {
    upserts: new Map(),
    removes: new Set(),
    touched: new Set(),
  };
  private flushTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly client: KubeClient,
    private readonly cache: Cache,
  ) {}

  static async start(opts: { client: KubeClient; logger: Logger; namespace?: string }): Promise<DashboardState> {
    const cache = new Cache({
      client: opts.client,
      logger: opts.logger,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    });
    const state = new DashboardState(opts.client, cache);
    cache.start();
    const wanted: Array<[ResourceMapping, Role]> = (await discoverModelplaneKinds(opts.client)).map((m) => [
      m,
      'resource',
    ]);
    const others = await Promise.all(
      [...CHILD_KINDS, EVENTS].map(async ([apiVersion, kind]): Promise<[ResourceMapping, Role] | undefined> => {
        try {
          return [await opts.client.mapping(kindRef(apiVersion, kind)), kind === 'Event' ? 'events' : 'child'];
        } catch (err) {
          if (isNoKindMatch(err)) return undefined;
          throw err;
        }
      }),
    );
    for (const w of others) if (w) wanted.push(w);
    // the access checks and list-watches run together; the kinds keep discovery's order
    const watched = await Promise.all(wanted.map(([m, role]) => state.watch(m, role, opts.namespace)));
    for (const w of watched) if (w) state.adopt(w);
    state.hidden.sort();
    await cache.waitForSync();
    return state;
  }

  /** checks the credentials may list the kind (so a forbidden kind is named, not retried forever), then watches it */
  private async watch(m: ResourceMapping, role: Role, namespace: string | undefined): Promise<Watched | undefined> {
    try {
      await this.client.list(kindRef(m.apiVersion, m.kind), {
        limit: 1,
        ...(namespace && m.namespaced ? { namespace } : {}),
      });
    } catch (err) {
      if (!isForbidden(err)) throw err;
      this.hidden.push(`${m.resource}${m.group ? `.${m.group}` : ''}`);
      return undefined;
    }
    return { mapping: m, role, informer: await this.cache.informer(kindRef(m.apiVersion, m.kind)) };
  }

  private adopt(w: Watched): void {
    const m = w.mapping;
    this.watched.push(w);
    if (w.role === 'resource')
      this.kinds.push({
        group: m.group,
        version: m.version,
        kind: m.kind,
        resource: m.resource,
        namespaced: m.namespaced,
        primary: isPrimaryKind(m.kind),
      });
    w.informer.addHandler({
      add: (o) => this.changed(w, o, false),
      update: (_old, o) => this.changed(w, o, false),
      delete: (o) => this.changed(w, o, true),
    });
  }

  private changed(w: Watched, raw: KubeObject, deleted: boolean): void {
    const obj = this.withKind(w, raw);
    const p = this.pending;
    if (w.role === 'resource') {
      const key = keyOf(obj);
      if (deleted) {
        p.upserts.delete(key);
        p.removes.add(key);
      } else {
        p.upserts.set(key, obj);
        p.removes.delete(key);
        if (obj.kind === 'VariantAutoscaling') this.recordAutoscaler(obj);
      }
      p.touched.add(key);
    }
    if (w.role === 'events') {
      const io = (obj as { involvedObject?: { apiVersion?: string; kind?: string; namespace?: string; name?: string } })
        .involvedObject;
      if (io?.kind && io.name)
        p.touched.add(
          rowKey({ group: groupOf(io.apiVersion), kind: io.kind, namespace: io.namespace ?? '', name: io.name }),
        );
    }
    if (w.role === 'child' && !deleted) for (const va of this.autoscalersTargeting(obj)) this.recordAutoscaler(va);
    for (const ref of obj.metadata.ownerReferences ?? [])
      p.touched.add(
        rowKey({
          group: groupOf(ref.apiVersion),
          kind: ref.kind,
          namespace: obj.metadata.namespace ?? '',
          name: ref.name,
        }),
      );
    this.flushTimer ??= setTimeout(() => this.flush(), 50);
  }

  /** a VariantAutoscaling's point: its desired replicas, and the current replicas of its scale target */
  private recordAutoscaler(va: KubeObject): void {
    const ref = (va as { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }).spec?.scaleTargetRef;
    const target =
      ref?.kind && ref.name
        ? this.ofKind(ref.kind).find(
            (o) => o.metadata.name === ref.name && o.metadata.namespace === va.metadata.namespace,
          )
        : undefined;
    const current = (target?.status as { replicas?: number } | undefined)?.replicas;
    const key = keyOf(va);
    recordAutoscalerPoint(this.autoscalerHistory, key, va, typeof current === 'number' ? current : undefined);
    this.pending.touched.add(key);
  }

  private autoscalersTargeting(obj: KubeObject): KubeObject[] {
    return this.ofKind('VariantAutoscaling', 'llmd.ai').filter((va) => {
      const ref = (va as { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }).spec?.scaleTargetRef;
      return (
        ref?.kind === obj.kind && ref.name === obj.metadata.name && va.metadata.namespace === obj.metadata.namespace
      );
    });
  }

  private flush(): void {
    this.flushTimer = undefined;
    const p = this.pending;
    this.pending = { upserts: new Map(), removes: new Set(), touched: new Set() };
    const change: StateChange = {
      upserts: [...p.upserts.values()].map(summaryOf),
      removes: [...p.removes],
      touched: p.touched,
    };
    for (const fn of this.listeners) fn(change);
  }

  private withKind(w: Watched, obj: KubeObject): KubeObject {
    return obj.kind && obj.apiVersion ? obj : { ...obj, apiVersion: w.mapping.apiVersion, kind: w.mapping.kind };
  }

  onChange(fn: (c: StateChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** every object of the given role (resources, children, events), with apiVersion and kind set */
  *objects(role: Role): Iterable<KubeObject> {
    for (const w of this.watched)
      if (w.role === role) for (const o of w.informer.store.list()) yield this.withKind(w, o);
  }

  /** objects of one kind (any role), e.g. the InferenceProviderConfigs for the selection panel */
  ofKind(kind: string, group?: string): KubeObject[] {
    return this.watched
      .filter((w) => w.mapping.kind === kind && (group === undefined || w.mapping.group === group))
      .flatMap((w) => w.informer.store.list().map((o) => this.withKind(w, o)));
  }

  find(key: string): KubeObject | undefined {
    const [group, kind, namespace, ...rest] = key.split('/');
    const name = rest.join('/');
    for (const w of this.watched) {
      if (w.mapping.kind !== kind || w.mapping.group !== group) continue;
      const o = w.informer.get(name, namespace || undefined);
      if (o) return this.withKind(w, o);
    }
    return undefined;
  }

  summaries(): ResourceSummary[] {
    return [...this.objects('resource')].map(summaryOf);
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.listeners.clear();
    await this.cache.stop();
  }
}

// The controller builder (controller-runtime's builder.ControllerManagedBy):
//
//   mgr.controller('widget')
//     .for(Widgets, { predicates: [generationChanged()] })
//     .owns(ConfigMaps)
//     .watches(Secrets, (s) => widgetsUsing(s))
//     .withOptions({ concurrency: 4 })
//     .complete(async (req, ctx) => { …; return { requeueAfter: 30_000 }; });

import type { Cache, InformerSpec } from '../cache/cache.ts';
import type { KubeClient } from '../client/client.ts';
import type { EventRecorder } from '../events.ts';
import type { Logger } from '../log.ts';
import type { KindRef, KubeObject } from '../meta/types.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import { Controller, type MapFunc, mapControllerOwner, mapSelf, type Reconciler, type Source } from './controller.ts';
import type { Predicate } from './predicates.ts';
import type { RateLimiter } from './ratelimit.ts';

export interface BuilderDeps {
  cache: Cache;
  /** the shared client; the controller gets a view of it with its own field manager */
  client: KubeClient;
  metrics?: RuntimeMetrics;
  logger?: Logger;
  recorderFor?: (controllerName: string) => EventRecorder;
  /** called with the finished controller (the manager registers it) */
  register?: (controller: Controller) => void;
}

export interface SourceOptions<T extends KubeObject> {
  predicates?: Predicate<T>[];
  /** which shared informer to use (namespace, label selector, metadata-only) */
  spec?: InformerSpec;
}

export interface BuilderOptions {
  concurrency?: number;
  cacheSyncTimeoutMs?: number;
  resyncPeriodMs?: number;
  rateLimiter?: RateLimiter;
  /** default: the controller name */
  fieldManager?: string;
  /**
   * each reconcile works from the current state and the answers to its own writes and returns every
   * requeue it needs: its own writes' echoes do not wake it, its latest success cancels pending requeues
   */
  levelBased?: boolean;
}

export class ControllerBuilder {
  private primary: Source | undefined;
  private readonly secondary: Source[] = [];
  private readonly global: Predicate<any>[] = [];
  private options: BuilderOptions = {};
  private controller: Controller | undefined;

  constructor(
    readonly name: string,
    private readonly deps: BuilderDeps,
  ) {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name))
      throw new Error(
        `controller name "${name}" must be a lowercase DNS-1123 name (it labels metrics and is the field manager)`,
      );
  }

  for<T extends KubeObject>(kind: KindRef<T>, opts: SourceOptions<T> = {}): this {
    if (this.primary) throw new Error(`controller "${this.name}": for() already called with ${this.primary.kind.kind}`);
    this.primary = {
      kind,
      predicates: opts.predicates ?? [],
      map: mapSelf,
      mapOld: false,
      ...(opts.spec ? { spec: opts.spec } : {}),
    };
    return this;
  }

  /** children whose controller ownerReference points at the primary kind enqueue their owner */
  owns<T extends KubeObject>(kind: KindRef<T>, opts: SourceOptions<T> = {}): this {
    const owner = () => this.requirePrimary('owns').kind;
    const map: MapFunc = (obj) =>
      mapControllerOwner(owner(), () => this.controller?.primaryMapping?.namespaced ?? true)(obj);
    this.secondary.push({
      kind,
      predicates: opts.predicates ?? [],
      map,
      mapOld: true,
      ...(opts.spec ? { spec: opts.spec } : {}),
    });
    return this;
  }

  /** any other relation: `mapFn` turns an event's object into the keys to reconcile */
  watches<T extends KubeObject>(kind: KindRef<T>, mapFn: MapFunc<T>, opts: SourceOptions<T> = {}): this {
    this.secondary.push({
      kind,
      predicates: opts.predicates ?? [],
      map: mapFn as MapFunc,
      mapOld: true,
      ...(opts.spec ? { spec: opts.spec } : {}),
    });
    return this;
  }

  /** predicates applied to the events of every source */
  withEventFilter(...predicates: Predicate<any>[]): this {
    this.global.push(...predicates);
    return this;
  }

  withOptions(options: BuilderOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  complete(reconciler: Reconciler): Controller {
    const primary = this.requirePrimary('complete');
    const fieldManager = this.options.fieldManager ?? this.name;
    this.controller = new Controller({
      name: this.name,
      cache: this.deps.cache,
      client: this.deps.client.withFieldManager(fieldManager),
      sources: [primary, ...this.secondary],
      globalPredicates: this.global,
      reconciler,
      ...(this.options.concurrency !== undefined ? { concurrency: this.options.concurrency } : {}),
      ...(this.options.levelBased ? { levelBased: true } : {}),
      ...(this.options.resyncPeriodMs !== undefined ? { resyncPeriodMs: this.options.resyncPeriodMs } : {}),
      ...(this.options.cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs: this.options.cacheSyncTimeoutMs } : {}),
      ...(this.options.rateLimiter ? { rateLimiter: this.options.rateLimiter } : {}),
      ...(this.deps.recorderFor ? { recorder: this.deps.recorderFor(this.name) } : {}),
      ...(this.deps.metrics ? { metrics: this.deps.metrics } : {}),
      ...(this.deps.logger ? { logger: this.deps.logger } : {}),
    });
    this.deps.register?.(this.controller);
    return this.controller;
  }

  private requirePrimary(step: string): Source {
    if (!this.primary) throw new Error(`controller "${this.name}": call for(kind) before ${step}()`);
    return this.primary;
  }
}

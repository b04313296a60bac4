// The autoscaler's configuration cache (docs/autoscaling.md, "Configuration"). The ConfigMap controller is
// its only writer; the saturation engine only reads it and never calls the API server. Every update builds
// a new deep-frozen Snapshot and swaps it in whole, so a reader holding a snapshot sees one consistent
// configuration for its entire cycle, and nobody can change the cache through what a read returned.
import {
  MAX_OPT_INTERVAL_MS,
  MIN_OPT_INTERVAL_MS,
  type ModelOverride,
  type ParsedSaturationConfig,
  type SaturationConfig,
} from './parse.ts';
import type { ParsedScaleToZero } from './scale-to-zero.ts';

/** the interval the engine starts with, until GLOBAL_OPT_INTERVAL says otherwise */
export const DEFAULT_OPT_INTERVAL_MS = 30_000;

export interface ConfigSnapshot {
  /** increases with every published change */
  readonly version: number;
  readonly optimizationIntervalMs: number;
  /** the global saturation ConfigMap's last good content (undefined until one was loaded) */
  readonly global?: ParsedSaturationConfig;
  /** namespace-local ConfigMaps, which replace the global one for their namespace */
  readonly namespaces: ReadonlyMap<string, ParsedSaturationConfig>;
  /** the scale-to-zero ConfigMap's last good content */
  readonly scaleToZero?: ParsedScaleToZero;
}

export type ConfigSource = 'global' | { namespace: string };

/** which entry decided a model's thresholds, for logs and condition messages */
export interface ResolvedConfig {
  readonly config: SaturationConfig;
  /** e.g. `saturation-scaling-config[default]` or `team-a/saturation-scaling-config[llama-8b]` */
  readonly origin: string;
}

export class ConfigCache {
  private current: ConfigSnapshot = freezeSnapshot({
    version: 0,
    optimizationIntervalMs: DEFAULT_OPT_INTERVAL_MS,
    namespaces: new Map(),
  });
  private readonly listeners = new Set<(s: ConfigSnapshot) => void>();

  /** the current configuration; immutable, so it may be held across awaits */
  snapshot(): ConfigSnapshot {
    return this.current;
  }

  /** called after every published change (the engine uses it to apply a new interval at once) */
  onChange(fn: (s: ConfigSnapshot) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** clamped to [1 s, 24 h] whatever the caller passes (the parser reports values outside) */
  setOptimizationInterval(requested: number): void {
    const ms = Math.min(
      MAX_OPT_INTERVAL_MS,
      Math.max(MIN_OPT_INTERVAL_MS, Number.isFinite(requested) ? requested : MIN_OPT_INTERVAL_MS),
    );
    if (ms === this.current.optimizationIntervalMs) return;
    this.publish({ optimizationIntervalMs: ms });
  }

  setScaleToZeroConfig(parsed: ParsedScaleToZero): void {
    this.publish({ scaleToZero: parsed });
  }

  /** stores a parsed saturation ConfigMap; one that yielded no usable entry keeps the last good one */
  setSaturationConfig(source: ConfigSource, parsed: ParsedSaturationConfig): 'updated' | 'kept-last-good' {
    if (!parsed.defaultConfig && parsed.overrides.length === 0) return 'kept-last-good';
    if (source === 'global') {
      this.publish({ global: parsed });
    } else {
      const namespaces = new Map(this.current.namespaces);
      namespaces.set(source.namespace, parsed);
      this.publish({ namespaces });
    }
    return 'updated';
  }

  /**
   * a namespace-local ConfigMap was deleted: the namespace falls back to the global one. (A deleted global
   * ConfigMap changes nothing: the last good configuration stays.)
   */
  removeNamespaceConfig(namespace: string): void {
    if (!this.current.namespaces.has(namespace)) return;
    const namespaces = new Map(this.current.namespaces);
    namespaces.delete(namespace);
    this.publish({ namespaces });
  }

  private publish(change: Partial<Omit<ConfigSnapshot, 'version'>>): void {
    this.current = freezeSnapshot({ ...this.current, ...change, version: this.current.version + 1 });
    for (const fn of this.listeners) fn(this.current);
  }
}

/**
 * The thresholds for one model in one namespace: the namespace-local map if there is one, else the global
 * one; within it, the entry for this model (and namespace) if any, else `default`. Undefined = not loaded.
 */
export function resolveSaturationConfig(
  snapshot: ConfigSnapshot,
  namespace: string,
  modelID: string,
  globalName: string,
): ResolvedConfig | undefined {
  const local = snapshot.namespaces.get(namespace);
  const parsed = local ?? snapshot.global;
  if (!parsed) return undefined;
  const where = local ? `${namespace}/${globalName}` : globalName;
  const override = bestOverride(parsed.overrides, namespace, modelID);
  if (override) return { config: override.config, origin: `${where}[${override.entry}]` };
  if (parsed.defaultConfig) return { config: parsed.defaultConfig, origin: `${where}[default]` };
  return undefined;
}

function bestOverride(
  overrides: readonly ModelOverride[],
  namespace: string,
  modelID: string,
): ModelOverride | undefined {
  let any: ModelOverride | undefined;
  for (const o of overrides) {
    if (o.modelID !== modelID) continue;
    if (o.namespace === namespace) return o;
    if (o.namespace === undefined) any ??= o;
  }
  return any;
}

function freezeSnapshot(s: ConfigSnapshot): ConfigSnapshot {
  return Object.freeze({ ...s, namespaces: new FrozenMap(s.namespaces) });
}

/** a Map whose mutators throw, so a snapshot's namespace table cannot be changed by a reader */
class FrozenMap<K, V> extends Map<K, V> {
  private sealed = false;
  constructor(entries: Iterable<readonly [K, V]>) {
    super(entries);
    this.sealed = true;
    Object.freeze(this);
  }
  override set(key: K, value: V): this {
    if (this.sealed) throw new TypeError('the configuration snapshot is read-only');
    return super.set(key, value);
  }
  override delete(_key: K): boolean {
    throw new TypeError('the configuration snapshot is read-only');
  }
  override clear(): void {
    throw new TypeError('the configuration snapshot is read-only');
  }
}

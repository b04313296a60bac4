// The AIM runtime-config resolution as the engine's RuntimeConfigSource: two cache reads (the namespaced config
// in the consumer's namespace, or in the operator namespace for cluster-scoped consumers, and the cluster
// config of the same name), then the pure resolution of src/common/runtime-config. A missing explicit config
// is a MissingUpstreamDependency with reason ConfigNotFound: the consumer goes Failed (docs/controllers.md), and the controllers
// watch both config kinds so it is reconciled again the moment the config appears.

import { deepFreeze } from '@modelplane/runtime/meta';
import {
  type ResolvedRuntimeConfigRef,
  type RuntimeConfigResolution,
  type RuntimeConfigSpec,
  resolveRuntimeConfig,
  runtimeConfigLookupNamespace,
  runtimeConfigNameFor,
} from '../../../common/runtime-config/index.ts';
import { missingUpstreamError } from '../../../engine/errors.ts';
import { FetchResult, fetch, type ObjectReader } from '../../../engine/fetch-result.ts';
import type { RuntimeConfigSource } from '../../../engine/types.ts';
import { AIMClusterRuntimeConfigs, AIMRuntimeConfigs, type RuntimeConfigConsumer } from './kinds.ts';

/** what every AIM planner sees as ctx.runtimeConfig */
export interface AimRuntimeConfig {
  /** the name resolved: spec.runtimeConfigName or `default` */
  name: string;
  outcome: 'Resolved' | 'DefaultConfigNotFound';
  /** cluster ⊕ namespace; an AIMService's inline values are applied on top by its planner */
  spec: RuntimeConfigSpec;
  /** status.resolvedRuntimeConfig; absent when the default config does not exist */
  ref?: ResolvedRuntimeConfigRef;
  message?: string;
}

export const CONFIG_NOT_FOUND = 'ConfigNotFound';
export const DEFAULT_CONFIG_NOT_FOUND = 'DefaultConfigNotFound';

export async function fetchAimRuntimeConfig(
  consumer: RuntimeConfigConsumer,
  reader: ObjectReader,
  operatorNamespace: string,
): Promise<FetchResult<AimRuntimeConfig>> {
  const name = runtimeConfigNameFor(consumer.spec?.runtimeConfigName);
  const namespace = runtimeConfigLookupNamespace(consumer.metadata.namespace, operatorNamespace);
  const target = { kind: 'AIMRuntimeConfig', name, namespace };
  const [namespaced, cluster] = await Promise.all([
    fetch(reader, AIMRuntimeConfigs, name, namespace),
    fetch(reader, AIMClusterRuntimeConfigs, name),
  ]);
  for (const r of [namespaced, cluster]) if (!r.ok() && !r.isNotFound()) return FetchResult.failure(r.error, target);
  const resolution = resolveOnce(
    name,
    namespace,
    namespaced.ok() ? namespaced.value : undefined,
    cluster.ok() ? cluster.value : undefined,
  );
  switch (resolution.outcome) {
    case 'ConfigNotFound':
      return FetchResult.failure(missingUpstreamError(CONFIG_NOT_FOUND, resolution.message), target);
    case 'DefaultConfigNotFound':
      return FetchResult.of(
        { name, outcome: resolution.outcome, spec: resolution.spec, message: resolution.message },
        target,
      );
    case 'Resolved':
      return FetchResult.of({ name, outcome: resolution.outcome, spec: resolution.spec, ref: resolution.ref }, target);
  }
}

type ConfigObject = Parameters<typeof asCandidate>[0];

/**
 * Resolutions by the config objects they were merged from. Cached objects are frozen and replaced, never
 * changed, on every update, so the pair of objects identifies the result: a thousand services sharing one
 * config merge it once. The result is frozen too, as everything else a planner reads from the cache.
 */
const resolutions = new WeakMap<object, WeakMap<object, RuntimeConfigResolution>>();
const ABSENT = Object.freeze({});

function resolveOnce(
  name: string,
  namespace: string,
  namespaced: ConfigObject | undefined,
  cluster: ConfigObject | undefined,
): RuntimeConfigResolution {
  const resolve = () =>
    resolveRuntimeConfig({
      runtimeConfigName: name,
      namespace,
      ...(namespaced ? { namespaced: asCandidate(namespaced) } : {}),
      ...(cluster ? { cluster: asCandidate(cluster) } : {}),
    });
  // nothing to merge, or objects that are not the cache's (frozen) own: resolve as is
  if (
    (!namespaced && !cluster) ||
    (namespaced && !Object.isFrozen(namespaced)) ||
    (cluster && !Object.isFrozen(cluster))
  )
    return resolve();
  const a = namespaced ?? ABSENT;
  const b = cluster ?? ABSENT;
  let byCluster = resolutions.get(a);
  if (!byCluster) resolutions.set(a, (byCluster = new WeakMap()));
  let r = byCluster.get(b);
  if (!r) byCluster.set(b, (r = deepFreeze(resolve())));
  return r;
}

function asCandidate(o: { metadata: { name?: string; namespace?: string; uid?: string }; spec?: RuntimeConfigSpec }) {
  return {
    metadata: {
      name: o.metadata.name ?? '',
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
    },
    ...(o.spec ? { spec: o.spec } : {}),
  };
}

export function aimRuntimeConfigSource<T extends RuntimeConfigConsumer>(
  operatorNamespace: string,
): RuntimeConfigSource<T, AimRuntimeConfig> {
  return { fetch: (object, reader) => fetchAimRuntimeConfig(object, reader, operatorNamespace) };
}

/**
 * The RuntimeConfig component every consumer reports: Ready (reason RuntimeConfigResolved, or
 * DefaultConfigNotFound when the implicit default is absent: True, as docs/aim.md says), or the failure.
 */
export function runtimeConfigHealth(rc: FetchResult<AimRuntimeConfig> | undefined) {
  if (!rc) return undefined;
  return rc.toUpstreamComponentHealth('RuntimeConfig', (v) =>
    v.outcome === 'DefaultConfigNotFound'
      ? // docs/aim.md: "a Normal event is emitted on the first reconcile with reason DefaultConfigNotFound"
        {
          state: 'Ready' as const,
          reason: DEFAULT_CONFIG_NOT_FOUND,
          message: `no runtime config named ${v.name} exists; continuing without runtime config overrides`,
          announce: true,
        }
      : {
          state: 'Ready' as const,
          reason: 'RuntimeConfigResolved',
          message: `resolved ${v.ref?.kind} ${v.ref?.namespace ? `${v.ref.namespace}/` : ''}${v.name}`,
        },
  );
}

/** the consumers' status.resolvedRuntimeConfig: one ref, or none (the default config does not exist) */
export function resolvedRuntimeConfigRef(
  rc: FetchResult<AimRuntimeConfig> | undefined,
  previous: ResolvedRuntimeConfigRef | undefined,
): ResolvedRuntimeConfigRef | undefined {
  if (!rc) return previous;
  if (rc.ok()) return rc.value.ref;
  // a read failure keeps what we knew; a config that is now missing is no longer resolved
  return rc.isNotFound() || rc.categorized()?.reason === CONFIG_NOT_FOUND ? undefined : previous;
}

/** sets (or removes) status.resolvedRuntimeConfig from this reconcile's resolution */
export function setResolvedRuntimeConfig(
  status: { resolvedRuntimeConfig?: unknown; [field: string]: unknown },
  rc: FetchResult<AimRuntimeConfig> | undefined,
): void {
  const ref = resolvedRuntimeConfigRef(rc, status.resolvedRuntimeConfig as ResolvedRuntimeConfigRef | undefined);
  if (ref) status.resolvedRuntimeConfig = ref;
  else delete status.resolvedRuntimeConfig;
}

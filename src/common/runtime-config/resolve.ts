/**
 * Runtime-config resolution over already-fetched candidates (the caller does the two GETs): which name to look
 * for, which scope wins, the merged spec and the single status reference, with "not found" outcomes as data.
 */
import { mergeRuntimeConfig } from './merge.ts';
import {
  CLUSTER_RUNTIME_CONFIG_KIND,
  DEFAULT_RUNTIME_CONFIG_NAME,
  type ResolvedRuntimeConfigRef,
  RUNTIME_CONFIG_KIND,
  type RuntimeConfigObject,
  type RuntimeConfigSpec,
} from './types.ts';

export const DEFAULT_OPERATOR_NAMESPACE = 'aim-system';

export interface RuntimeConfigCandidates {
  /** spec.runtimeConfigName of the consumer; empty or absent means `default`. */
  runtimeConfigName?: string;
  /** Namespace the namespaced config was looked up in (the consumer's, or the operator's for cluster consumers). */
  namespace?: string;
  /** The AIMRuntimeConfig of that name in that namespace, if it exists. */
  namespaced?: RuntimeConfigObject;
  /** The AIMClusterRuntimeConfig of that name, if it exists. */
  cluster?: RuntimeConfigObject;
}

export type RuntimeConfigResolution =
  | {
      outcome: 'Resolved';
      name: string;
      /** cluster spec merged under the namespaced spec; the AIMService's inline config is applied by the caller. */
      spec: RuntimeConfigSpec;
      /** The namespaced config when it exists (it is the one whose values win), else the cluster config. */
      ref: ResolvedRuntimeConfigRef;
    }
  | { outcome: 'DefaultConfigNotFound'; name: string; spec: RuntimeConfigSpec; message: string }
  | { outcome: 'ConfigNotFound'; name: string; message: string };

/** The name a consumer resolves: its runtimeConfigName, or `default`. */
export function runtimeConfigNameFor(runtimeConfigName: string | undefined): string {
  return runtimeConfigName ? runtimeConfigName : DEFAULT_RUNTIME_CONFIG_NAME;
}

/** Namespace to look namespaced configs up in: the consumer's own, or the operator namespace for cluster objects. */
export function runtimeConfigLookupNamespace(consumerNamespace: string | undefined, operatorNamespace: string): string {
  return consumerNamespace ? consumerNamespace : operatorNamespace;
}

/** AIM_SYSTEM_NAMESPACE, defaulting to `aim-system`. */
export function operatorNamespaceFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  return env.AIM_SYSTEM_NAMESPACE ? env.AIM_SYSTEM_NAMESPACE : DEFAULT_OPERATOR_NAMESPACE;
}

export function resolveRuntimeConfig(candidates: RuntimeConfigCandidates): RuntimeConfigResolution {
  const name = runtimeConfigNameFor(candidates.runtimeConfigName);
  const { namespaced, cluster } = candidates;
  assertCandidate(namespaced, name, candidates.namespace, RUNTIME_CONFIG_KIND);
  assertCandidate(cluster, name, undefined, CLUSTER_RUNTIME_CONFIG_KIND);

  if (!namespaced && !cluster) {
    if (name === DEFAULT_RUNTIME_CONFIG_NAME) {
      return { outcome: 'DefaultConfigNotFound', name, spec: {}, message: 'Default config was not found' };
    }
    const where = candidates.namespace ? ` in namespace ${candidates.namespace}` : '';
    return {
      outcome: 'ConfigNotFound',
      name,
      message: `RuntimeConfig ${name} not found: no ${RUNTIME_CONFIG_KIND}${where} and no ${CLUSTER_RUNTIME_CONFIG_KIND} has that name`,
    };
  }
  const spec = mergeRuntimeConfig(cluster?.spec, namespaced?.spec);
  const ref: ResolvedRuntimeConfigRef = namespaced
    ? {
        kind: RUNTIME_CONFIG_KIND,
        name,
        namespace: namespaced.metadata.namespace ?? '',
        scope: 'Namespace',
        uid: namespaced.metadata.uid ?? '',
      }
    : { kind: CLUSTER_RUNTIME_CONFIG_KIND, name, namespace: '', scope: 'Cluster', uid: cluster?.metadata.uid ?? '' };
  return { outcome: 'Resolved', name, spec, ref };
}

// A candidate with another name or namespace is a caller bug, not a user error: fail loudly.
function assertCandidate(
  candidate: RuntimeConfigObject | undefined,
  name: string,
  namespace: string | undefined,
  kind: string,
): void {
  if (!candidate) return;
  if (candidate.metadata.name !== name) {
    throw new Error(`${kind} candidate ${candidate.metadata.name} does not match the requested name ${name}`);
  }
  if (namespace !== undefined && candidate.metadata.namespace !== namespace) {
    throw new Error(
      `${kind} candidate ${candidate.metadata.namespace}/${candidate.metadata.name} is not in namespace ${namespace}`,
    );
  }
}

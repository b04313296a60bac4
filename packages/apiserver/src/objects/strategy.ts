// What differs between kinds on the write path: defaults, pruning, validation and the schema patch
// logic needs. Built-in kinds and custom resources each get one implementation (strategies/).
import type { StatusCause } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';

export interface TypeStrategy {
  /** removes unknown fields in place; returns their paths (for fieldValidation Strict/Warn) */
  prune(obj: KubeObject, version: string): string[];
  /** applies defaults in place (on write and on read for custom resources) */
  applyDefaults(obj: KubeObject, version: string): void;
  /** kind-specific validation (schema, CEL, built-in rules); metadata is validated separately */
  validate(obj: KubeObject, old: KubeObject | undefined, version: string): StatusCause[];
  /** schema for strategic merge and server-side apply (opaque here; owned by ../patch) */
  patchSchema(version: string): unknown;
  /** does this type accept strategic merge patches (built-ins only) */
  strategicMerge: boolean;
  /** server-assigned fields on create (Service clusterIP, Pod phase…) */
  prepareForCreate?(obj: KubeObject): void;
  /** fields an update may not change (e.g. a Namespace's spec.finalizers, changed only through /finalize) */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
}

export interface StrategyProvider {
  for(rt: ResourceType): TypeStrategy;
}

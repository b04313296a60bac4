// Pieces every provider's status mapping uses: conditions by type, and the rule that a status an upstream
// operator wrote for an older generation says nothing about the current spec.
import type { KubeCondition } from '../../../../engine/index.ts';
import type { MappedStatus } from '../../provider/definition.ts';

export function findCondition(
  conditions: readonly KubeCondition[] | undefined,
  ...types: string[]
): KubeCondition | undefined {
  return conditions?.find((c) => types.includes(c.type));
}

/**
 * Deploying while the upstream operator has not yet observed the resource's current generation (after a
 * config change its old "ready" would otherwise read as Running). Only when the operator reports an
 * observedGeneration at all: one that never does is taken at its word.
 */
export function staleStatus(
  kind: string,
  generation: number | undefined,
  observed: number | undefined,
): MappedStatus | undefined {
  if (generation === undefined || observed === undefined || observed >= generation) return undefined;
  return {
    phase: 'Deploying',
    message: `waiting for the ${kind} operator to observe generation ${generation} (it reports ${observed})`,
  };
}

/** a non-negative integer from an upstream status field, else undefined */
export function nonNegativeInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

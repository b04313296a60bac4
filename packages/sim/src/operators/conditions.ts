// Condition bookkeeping shared by the simulators: a condition keeps its lastTransitionTime while its
// status stays the same, so re-deriving status on every reconcile writes nothing when nothing changed.

import type { Condition } from './kinds.ts';

/** metav1.Time: RFC 3339 with second precision */
export function kubeNow(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface ConditionInput {
  type: string;
  status: boolean | 'Unknown';
  reason: string;
  message?: string;
}

/**
 * Builds `conditions` in the given order from `inputs`, carrying over lastTransitionTime from `previous`
 * when a condition's status did not change.
 */
export function buildConditions(
  previous: Condition[] | undefined,
  inputs: ConditionInput[],
  opts: { observedGeneration?: number; now?: string; knative?: boolean } = {},
): Condition[] {
  const now = opts.now ?? kubeNow();
  return inputs.map((c) => {
    const status: Condition['status'] = c.status === 'Unknown' ? 'Unknown' : c.status ? 'True' : 'False';
    const prev = previous?.find((p) => p.type === c.type);
    const out: Condition = {
      type: c.type,
      status,
      // Knative conditions (KServe) leave reason/message empty on True; metav1 conditions require a reason
      ...(opts.knative && status === 'True' ? {} : { reason: c.reason }),
      ...(opts.knative && status === 'True' && !c.message ? {} : { message: c.message ?? '' }),
      lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now,
    };
    if (opts.observedGeneration !== undefined && !opts.knative) out.observedGeneration = opts.observedGeneration;
    return out;
  });
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

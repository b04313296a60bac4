// The status conditions kube's namespace controller reports on a Terminating namespace, with its
// reasons and messages, so `kubectl describe ns` reads the same: each condition is False ("ok") unless
// content deletion failed, content remains, or finalizers on remaining content hold it.

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** What one pass over a Terminating namespace found. */
export interface ContentTotals {
  /** `<resource>.<group>` → objects still present (kube prints `configmaps.` for the core group) */
  remaining: Map<string, number>;
  /** finalizer → remaining objects carrying it */
  finalizers: Map<string, number>;
  /** messages of deletions that failed for another reason than a race */
  failures: string[];
}

const OK: Array<[type: string, reason: string, message: string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

function counted(counts: Map<string, number>, describe: (key: string, n: number) => string): string {
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([k, n]) => describe(k, n))
    .sort()
    .join(', ');
}

/** The failing variants of the conditions for these totals (types absent here are ok). */
function failing(totals: ContentTotals): Map<string, { reason: string; message: string }> {
  const out = new Map<string, { reason: string; message: string }>();
  if (totals.failures.length > 0) {
    const msgs = [...totals.failures].sort();
    out.set('NamespaceDeletionContentFailure', {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    });
  }
  const remaining = counted(totals.remaining, (k, n) => `${k} has ${n} resource instances`);
  if (remaining)
    out.set('NamespaceContentRemaining', {
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${remaining}`,
    });
  const finalizers = counted(totals.finalizers, (k, n) => `${k} in ${n} resource instances`);
  if (finalizers)
    out.set('NamespaceFinalizersRemaining', {
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers}`,
    });
  return out;
}

/**
 * The namespace's conditions after this pass: other conditions are kept, the controller's five are
 * updated in place, and lastTransitionTime changes only when a condition's status does.
 */
export function namespaceConditions(
  current: NamespaceCondition[] | undefined,
  totals: ContentTotals,
  now: string,
): NamespaceCondition[] {
  const out = (current ?? []).map((c) => ({ ...c }));
  const bad = failing(totals);
  for (const [type, okReason, okMessage] of OK) {
    const f = bad.get(type);
    const next = {
      status: (f ? 'True' : 'False') as 'True' | 'False',
      reason: f?.reason ?? okReason,
      message: f?.message ?? okMessage,
    };
    const existing = out.find((c) => c.type === type);
    if (!existing) {
      out.push({ type, ...next, lastTransitionTime: now });
    } else if (
      existing.status !== next.status ||
      existing.reason !== next.reason ||
      existing.message !== next.message
    ) {
      if (existing.status !== next.status) existing.lastTransitionTime = now;
      Object.assign(existing, next);
    }
  }
  return out;
}

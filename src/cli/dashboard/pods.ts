// The pods behind a resource's page (docs/dashboard.md): the pods its workloads select or own,
// each with its phase, node, restarts and, while it is not running, why (unschedulable, image pull, crash
// loop…), the way `kubectl get pods` and `kubectl describe` would say it. Pure over the dashboard's caches.
import type { KubeObject } from '@modelplane/runtime/meta';
import type { PodView } from './types.ts';

type Loose = Record<string, any>;

/** how deep ownership is followed from a resource to the workloads whose pods it shows (MD → Workspace → Deployment) */
const MAX_DEPTH = 3;

/** the label selector a workload or Service selects its pods with */
function selectorOf(obj: KubeObject): Record<string, string> | undefined {
  const spec = ((obj as Loose).spec ?? {}) as Loose;
  const sel = obj.kind === 'Service' ? spec.selector : spec.selector?.matchLabels;
  return sel && typeof sel === 'object' && Object.keys(sel).length > 0 ? (sel as Record<string, string>) : undefined;
}

/** the resource and what it owns, transitively (bounded), from the objects the dashboard sees */
export function descendants(root: KubeObject, all: readonly KubeObject[]): KubeObject[] {
  const out: KubeObject[] = [root];
  let frontier = new Set([root.metadata.uid].filter((u): u is string => Boolean(u)));
  for (let depth = 0; depth < MAX_DEPTH && frontier.size > 0; depth++) {
    const next = new Set<string>();
    for (const o of all) {
      if (!o.metadata.ownerReferences?.some((r) => frontier.has(r.uid))) continue;
      if (out.includes(o)) continue;
      out.push(o);
      if (o.metadata.uid) next.add(o.metadata.uid);
    }
    frontier = next;
  }
  return out;
}

/** the pods of a resource: owned by it or a descendant, or selected by a descendant workload's selector */
export function podsOf(root: KubeObject, all: readonly KubeObject[], pods: readonly KubeObject[]): KubeObject[] {
  if (root.kind === 'Pod') return [];
  // what an autoscaler (VariantAutoscaling, HPA, ScaledObject) scales is its target: its pods are the target's
  const ref = ((root as Loose).spec?.scaleTargetRef ?? {}) as Loose;
  const target = all.find(
    (o) =>
      o.kind === (ref.kind ?? 'Deployment') &&
      o.metadata.name === ref.name &&
      o.metadata.namespace === root.metadata.namespace,
  );
  const family = [...descendants(root, all), ...(target ? [target] : [])];
  const uids = new Set(family.map((o) => o.metadata.uid).filter(Boolean));
  const ns = root.metadata.namespace;
  const selectors = family
    .filter((o) => o.kind !== 'Pod' && (o.metadata.namespace === ns || !ns))
    .map((o) => ({ ns: o.metadata.namespace, sel: selectorOf(o) }))
    .filter((s): s is { ns: string | undefined; sel: Record<string, string> } => s.sel !== undefined);
  return pods
    .filter(
      (p) =>
        p.metadata.ownerReferences?.some((r) => uids.has(r.uid)) ||
        selectors.some(
          (s) => s.ns === p.metadata.namespace && Object.entries(s.sel).every(([k, v]) => p.metadata.labels?.[k] === v),
        ),
    )
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** why a pod is not running yet, in the words the cluster gave: a container's waiting reason, or scheduling */
export function pendingReason(pod: KubeObject): string | undefined {
  const status = ((pod as Loose).status ?? {}) as Loose;
  const waiting = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]
    .map((c: Loose) => c.state?.waiting)
    .find((w: Loose | undefined) => w?.reason && w.reason !== 'ContainerCreating');
  if (waiting) return `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
  const terminated = (status.containerStatuses ?? [])
    .map((c: Loose) => c.state?.terminated)
    .find((t: Loose | undefined) => t && t.exitCode !== 0);
  if (terminated) return `${terminated.reason ?? 'Error'} (exit code ${terminated.exitCode})`;
  const scheduled = (status.conditions ?? []).find((c: Loose) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') return `${scheduled.reason ?? 'Unschedulable'}: ${scheduled.message ?? ''}`.trim();
  if (status.phase === 'Pending') return status.reason ?? 'waiting for its containers to start';
  return status.reason;
}

export function podView(pod: KubeObject, key: string): PodView {
  const spec = ((pod as Loose).spec ?? {}) as Loose;
  const status = ((pod as Loose).status ?? {}) as Loose;
  const statuses = (status.containerStatuses ?? []) as Loose[];
  const ready = (status.conditions ?? []).find((c: Loose) => c.type === 'Ready')?.status === 'True';
  const why = ready ? undefined : pendingReason(pod);
  return {
    key,
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    phase: pod.metadata.deletionTimestamp ? 'Terminating' : String(status.phase ?? 'Unknown'),
    ready,
    node: spec.nodeName ?? '',
    restarts: statuses.reduce((n, c) => n + (Number(c.restartCount) || 0), 0),
    containers: ((spec.containers ?? []) as Loose[]).map((c) => String(c.name)),
    ...(why ? { reason: why } : {}),
    ...(pod.metadata.creationTimestamp ? { createdAt: pod.metadata.creationTimestamp } : {}),
  };
}

// The scheduler's decision for one pod, as a pure function: kube-scheduler's filter plugins in their order
// (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit), LeastAllocated scoring, and the
// FailedScheduling message in kube's exact shape:
//   0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) didn't match Pod's node
//   affinity/selector. preemption: 0/6 nodes are available: 2 No preemption victims found for incoming
//   pod, 4 Preemption is not helpful for scheduling.

import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from './kinds.ts';
import {
  insufficient,
  leastAllocatedScore,
  nodeAllocatable,
  podRequests,
  type Resources,
  sumRequests,
} from './resources.ts';

export interface NodeInfo {
  node: Node;
  /** the non-terminal pods bound to this node */
  pods: readonly Pod[];
}

export type ScheduleDecision = { node: string } | { unschedulable: string };

/** why a node was filtered out, and whether evicting lower-priority pods could change that */
interface Rejection {
  reasons: string[];
  /** true: resources (preemption could help, but every pod has the same priority here) */
  resolvable: boolean;
}

const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
const NO_VICTIMS = 'No preemption victims found for incoming pod';

export function tolerates(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if ((t.operator ?? 'Equal') === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function matchesRequirement(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      const a = BigInt(value);
      const b = BigInt(values[0]!);
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

function matchesTerm(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // an empty term matches nothing (kube's nodeaffinity semantics)
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    exprs.every((r) => matchesRequirement(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) &&
    fields.every((r) => matchesRequirement(r, r.key === 'metadata.name' ? node.metadata.name : undefined))
  );
}

/** spec.nodeSelector and required node affinity (terms are ORed) */
export function matchesNodeSelector(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required && !(required.nodeSelectorTerms ?? []).some((t) => matchesTerm(t, node))) return false;
  return true;
}

function filter(
  pod: Pod,
  request: Resources,
  info: NodeInfo,
  allocatable: Resources,
  used: Resources,
): Rejection | undefined {
  const { node } = info;
  const tolerations = pod.spec.tolerations;
  if (
    node.spec?.unschedulable &&
    !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })
  ) {
    return { reasons: ['node(s) were unschedulable'], resolvable: false };
  }
  const taint = (node.spec?.taints ?? []).find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t),
  );
  if (taint)
    return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], resolvable: false };
  if (!matchesNodeSelector(pod, node))
    return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
  const short = insufficient(request, allocatable, used, info.pods.length);
  if (short.length > 0)
    return { reasons: short.map((r) => (r === 'pods' ? 'Too many pods' : `Insufficient ${r}`)), resolvable: true };
  return undefined;
}

/** `count reason` strings sorted as kube sorts them (the whole string, count first) */
function tally(counts: Map<string, number>): string {
  return [...counts]
    .map(([reason, n]) => `${n} ${reason}`)
    .sort()
    .join(', ');
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** the FailedScheduling message for a pod every node rejected */
export function unschedulableMessage(total: number, rejections: readonly Rejection[]): string {
  const reasons = new Map<string, number>();
  const preemption = new Map<string, number>();
  for (const r of rejections) {
    for (const reason of r.reasons) bump(reasons, reason);
    bump(preemption, r.resolvable ? NO_VICTIMS : NOT_HELPFUL);
  }
  return `0/${total} nodes are available: ${tally(reasons)}. preemption: 0/${total} nodes are available: ${tally(preemption)}.`;
}

/** a PreFilter failure (e.g. an unbound PVC): one reason for the whole pod, nothing to preempt */
export function preFilterMessage(total: number, reason: string): string {
  return `0/${total} nodes are available: ${reason}. preemption: 0/${total} nodes are available: ${total} ${NOT_HELPFUL}.`;
}

/** the resource a forced-unschedulable pod is reported short of: the scarcest one it asks for */
function scarcestRequested(request: Resources): string {
  const names = [...request.keys()].filter((n) => request.get(n)! > 0);
  const accelerator = names.find((n) => n !== 'cpu' && n !== 'memory' && n !== 'ephemeral-storage' && n !== 'pods');
  return accelerator ?? (names.includes('memory') ? 'memory' : 'cpu');
}

/**
 * Picks a node for `pod`, or explains why none fits. `forceUnschedulable` (the Unschedulable failure
 * annotation) makes every node that would fit report the pod's scarcest resource as insufficient.
 */
export function decide(
  pod: Pod,
  nodes: readonly NodeInfo[],
  opts: { forceUnschedulable?: boolean } = {},
): ScheduleDecision {
  if (nodes.length === 0) return { unschedulable: 'no nodes available to schedule pods' };
  const request = podRequests(pod);
  const rejections: Rejection[] = [];
  let best: { name: string; score: number } | undefined;
  for (const info of nodes) {
    const allocatable = nodeAllocatable(info.node);
    const used = sumRequests(info.pods);
    const rejected =
      filter(pod, request, info, allocatable, used) ??
      (opts.forceUnschedulable
        ? { reasons: [`Insufficient ${scarcestRequested(request)}`], resolvable: true }
        : undefined);
    if (rejected) {
      rejections.push(rejected);
      continue;
    }
    const score = leastAllocatedScore(request, allocatable, used);
    const name = info.node.metadata.name ?? '';
    if (!best || score > best.score || (score === best.score && name < best.name)) best = { name, score };
  }
  if (best) return { node: best.name };
  return { unschedulable: unschedulableMessage(nodes.length, rejections) };
}

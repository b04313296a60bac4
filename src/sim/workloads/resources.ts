// Resource arithmetic for scheduling: what a pod requests (kube's computePodResourceRequest) and what a
// node has left, in exact Kubernetes quantities.

import { parseQuantity, type Quantity } from '../../common/quantity.ts';
import type { Container, Node, Pod, ResourceList } from './kinds.ts';

export type Resources = Map<string, Quantity>;

function quantity(value: string, what: string): Quantity {
  try {
    return parseQuantity(String(value));
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`);
  }
}

function containerRequests(c: Container, pod: string): Resources {
  const out: Resources = new Map();
  // the API server defaults requests from limits; do the same for objects written before that existed
  const merged: ResourceList = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
  for (const [name, v] of Object.entries(merged)) out.set(name, quantity(v, `pod ${pod}: container ${c.name}: resources.requests.${name}`));
  return out;
}

function addInto(into: Resources, add: Resources): void {
  for (const [k, v] of add) {
    const cur = into.get(k);
    into.set(k, cur ? cur.add(v) : v);
  }
}

// cached objects are frozen and replaced on change, so an object is a safe key for its parsed requests
const requestsOf = new WeakMap<Pod, Resources>();

/** max(sum of app containers, each init container) per resource, plus the pod overhead */
export function podRequests(pod: Pod): Resources {
  let cached = requestsOf.get(pod);
  if (!cached) {
    cached = computeRequests(pod);
    requestsOf.set(pod, cached);
  }
  return cached;
}

function computeRequests(pod: Pod): Resources {
  const name = `${pod.metadata.namespace}/${pod.metadata.name}`;
  const total: Resources = new Map();
  for (const c of pod.spec.containers ?? []) addInto(total, containerRequests(c, name));
  for (const c of pod.spec.initContainers ?? []) {
    for (const [k, v] of containerRequests(c, name)) {
      const cur = total.get(k);
      if (!cur || v.cmp(cur) > 0) total.set(k, v);
    }
  }
  const overhead: Resources = new Map();
  for (const [k, v] of Object.entries(pod.spec.overhead ?? {})) overhead.set(k, quantity(v, `pod ${name}: spec.overhead.${k}`));
  addInto(total, overhead);
  return total;
}

export function nodeAllocatable(node: Node): Resources {
  const out: Resources = new Map();
  const list = node.status?.allocatable ?? node.status?.capacity ?? {};
  for (const [k, v] of Object.entries(list)) out.set(k, quantity(v, `node ${node.metadata.name}: status.allocatable.${k}`));
  return out;
}

/** the sum of the requests of `pods` (those bound to one node) */
export function sumRequests(pods: readonly Pod[]): Resources {
  const out: Resources = new Map();
  for (const p of pods) addInto(out, podRequests(p));
  return out;
}

/** resources whose request exceeds what the node has left, in request order; `pods` counts as one each */
export function insufficient(request: Resources, allocatable: Resources, used: Resources, podsOnNode: number): string[] {
  const out: string[] = [];
  const maxPods = allocatable.get('pods');
  if (maxPods && BigInt(podsOnNode) + 1n > maxPods.value()) out.push('pods');
  for (const [name, want] of request) {
    if (name === 'pods' || want.isZero()) continue;
    const have = allocatable.get(name);
    const inUse = used.get(name);
    const free = have ? (inUse ? have.sub(inUse) : have) : undefined;
    if (!free || want.cmp(free) > 0) out.push(name);
  }
  return out;
}

/** the fraction of cpu and memory still free after placing the pod (kube's LeastAllocated score, 0..1) */
export function leastAllocatedScore(request: Resources, allocatable: Resources, used: Resources): number {
  let score = 0;
  for (const name of ['cpu', 'memory']) {
    const cap = allocatable.get(name)?.asApproximateFloat() ?? 0;
    if (cap <= 0) continue;
    const taken = (used.get(name)?.asApproximateFloat() ?? 0) + (request.get(name)?.asApproximateFloat() ?? 0);
    score += Math.max(0, cap - taken) / cap;
  }
  return score / 2;
}

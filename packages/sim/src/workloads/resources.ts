// Resource arithmetic for scheduling: what a pod requests (kube's computePodResourceRequest) and what a
// node has left. Quantities are parsed exactly, then held as the scheduler holds them: cpu in millicores,
// everything else in whole units rounded up (kube's MilliValue / Value), which plain numbers represent
// exactly up to 2^53 (8 PiB of memory), so summing the pods of a node is cheap.

import { parseQuantity } from '@modelplane/apimachinery/quantity';
import type { Container, Node, Pod, ResourceList } from './kinds.ts';

export type Resources = Map<string, number>;

function amount(resource: string, value: string, what: string): number {
  try {
    const q = parseQuantity(String(value));
    return Number(resource === 'cpu' ? q.milliValue() : q.value());
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`);
  }
}

function containerRequests(c: Container, pod: string): Resources {
  const out: Resources = new Map();
  // the API server defaults requests from limits; do the same for objects written before that existed
  const merged: ResourceList = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
  for (const [name, v] of Object.entries(merged))
    out.set(name, amount(name, v, `pod ${pod}: container ${c.name}: resources.requests.${name}`));
  return out;
}

function addInto(into: Resources, add: Resources): void {
  for (const [k, v] of add) into.set(k, (into.get(k) ?? 0) + v);
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
    for (const [k, v] of containerRequests(c, name)) total.set(k, Math.max(total.get(k) ?? 0, v));
  }
  for (const [k, v] of Object.entries(pod.spec.overhead ?? {}))
    total.set(k, (total.get(k) ?? 0) + amount(k, v, `pod ${name}: spec.overhead.${k}`));
  return total;
}

const allocatableOf = new WeakMap<Node, Resources>();

export function nodeAllocatable(node: Node): Resources {
  let cached = allocatableOf.get(node);
  if (!cached) {
    cached = computeAllocatable(node);
    allocatableOf.set(node, cached);
  }
  return cached;
}

function computeAllocatable(node: Node): Resources {
  const out: Resources = new Map();
  const list = node.status?.allocatable ?? node.status?.capacity ?? {};
  for (const [k, v] of Object.entries(list))
    out.set(k, amount(k, v, `node ${node.metadata.name}: status.allocatable.${k}`));
  return out;
}

/** the sum of the requests of `pods` (those bound to one node) */
export function sumRequests(pods: readonly Pod[]): Resources {
  const out: Resources = new Map();
  for (const p of pods) addInto(out, podRequests(p));
  return out;
}

/** resources whose request exceeds what the node has left, in request order; `pods` counts as one each */
export function insufficient(
  request: Resources,
  allocatable: Resources,
  used: Resources,
  podsOnNode: number,
): string[] {
  const out: string[] = [];
  const maxPods = allocatable.get('pods');
  if (maxPods !== undefined && podsOnNode + 1 > maxPods) out.push('pods');
  for (const [name, want] of request) {
    if (name === 'pods' || want === 0) continue;
    const free = (allocatable.get(name) ?? 0) - (used.get(name) ?? 0);
    if (want > free) out.push(name);
  }
  return out;
}

/** the fraction of cpu and memory still free after placing the pod (kube's LeastAllocated score, 0..1) */
export function leastAllocatedScore(request: Resources, allocatable: Resources, used: Resources): number {
  let score = 0;
  for (const name of ['cpu', 'memory']) {
    const cap = allocatable.get(name) ?? 0;
    if (cap <= 0) continue;
    const taken = (used.get(name) ?? 0) + (request.get(name) ?? 0);
    score += Math.max(0, cap - taken) / cap;
  }
  return score / 2;
}

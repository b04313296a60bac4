// The simulated kubelet: for every pod bound to a node it runs the containers (pod-run.ts), writes the
// pod status the real kubelet would (pod-status.ts), records the kubelet's events under the node's name,
// and writes container output to the PodLogStore that serves `pods/log`. Status goes through server-side
// apply on pods/status as field manager `kubelet`, only when it changed.

import { isConflict, isNotFound, type KubeClient, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext, Request } from '@modelplane/runtime/controller';
import type { SimContext } from './context.ts';
import { invalidFailureMessage, podFailure } from './failures.ts';
import { type Node, Nodes, type Pod, Pods } from './kinds.ts';
import { advance } from './pod-run.ts';
import { adoptPodRun, type LogSink, newPodRun, nextDue, type PodRun } from './pod-run-state.ts';
import { podStatus } from './pod-status.ts';
import { fnv32a, isTerminal } from './util.ts';

const FIELD_MANAGER = 'kubelet';

/**
 * A pod deleted gracefully (kube-apiserver stamps deletionTimestamp and waits for the kubelet): its simulated
 * containers stop at once, and the kubelet removes the pod with grace period 0, as a kubelet does once they
 * exited. The embedded API server deletes pods at once, so this only matters on the real control plane,
 * where pods left Terminating would keep their node's capacity (docs/real-kubernetes.md).
 */
async function finishDeletion(client: KubeClient, pod: Pod, stopContainers: () => void): Promise<void> {
  stopContainers();
  try {
    await client.delete(Pods, pod.metadata.name!, pod.metadata.namespace, {
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid! },
    });
  } catch (err) {
    // already gone, or a new pod of the same name (the precondition's 409)
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}

/**
 * Pod IPs per node: from the node's podCIDR (a /24) when it has one of its own, as kube-controller-manager
 * assigns them; otherwise from a 10.244.<n>.0/24 chosen by the node name's hash, skipping ranges other
 * nodes already use, so IPs stay unique across nodes and across simulator restarts.
 */
export class PodIpAllocator {
  private readonly used = new Map<string, Set<string>>();
  private readonly prefixes = new Map<string, string>();
  private readonly owners = new Map<string, string>();

  private claim(node: string, prefix: string): void {
    this.prefixes.set(node, prefix);
    this.owners.set(prefix, node);
  }

  private prefix(node: Node): string {
    const name = node.metadata.name ?? '';
    const known = this.prefixes.get(name);
    if (known) return known;
    const cidr = node.spec?.podCIDR ?? node.spec?.podCIDRs?.[0];
    const m = cidr ? /^(\d+\.\d+\.\d+)\.\d+\/(\d+)$/.exec(cidr) : null;
    // a podCIDR another node already has (a misconfigured pool) would hand out duplicate IPs
    const owner = m ? this.owners.get(m[1]!) : undefined;
    if (m && (owner === undefined || owner === name)) {
      this.claim(name, m[1]!);
      return m[1]!;
    }
    const start = fnv32a(name) % 250;
    for (let i = 0; i < 250; i++) {
      const prefix = `10.244.${((start + i) % 250) + 1}`;
      if (!this.owners.has(prefix)) {
        this.claim(name, prefix);
        return prefix;
      }
    }
    throw new Error(`node ${name}: no free 10.244.x.0/24 pod range left`);
  }

  allocate(node: Node): string {
    const name = node.metadata.name ?? '';
    const used = this.usedOn(name);
    const prefix = this.prefix(node);
    for (let i = 2; i < 255; i++) {
      const ip = `${prefix}.${i}`;
      if (!used.has(ip)) {
        used.add(ip);
        return ip;
      }
    }
    throw new Error(`node ${name}: no free pod IP left in ${prefix}.0/24`);
  }

  /** an IP a pod already has (adopted after a restart); its range belongs to that node from now on */
  reserve(nodeName: string, ip: string): void {
    this.usedOn(nodeName).add(ip);
    const prefix = ip.slice(0, ip.lastIndexOf('.'));
    if (!this.prefixes.has(nodeName) && !this.owners.has(prefix)) this.claim(nodeName, prefix);
  }

  release(nodeName: string, ip: string): void {
    this.used.get(nodeName)?.delete(ip);
  }

  private usedOn(node: string): Set<string> {
    let used = this.used.get(node);
    if (!used) {
      used = new Set();
      this.used.set(node, used);
    }
    return used;
  }
}

/** the node's InternalIP, or a stable made-up one */
export function nodeIP(node: Node): string {
  const internal = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (internal) return internal;
  const h = fnv32a(node.metadata.name ?? '');
  return `10.0.${(h >>> 8) % 250}.${(h % 250) + 2}`;
}

function hasStarted(pod: Pod): boolean {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].some(
    (s) => s.state?.running || s.state?.terminated,
  );
}

/** what the kubelet keeps between reconciles: the running pods, their IPs, and pods waiting for their node */
interface KubeletState {
  runs: Map<string, PodRun & { node: string }>;
  ips: PodIpAllocator;
  /** pods whose failure annotation was already reported as invalid */
  warned: Set<string>;
  /** pods bound to a node that does not exist (yet): run them once it appears */
  awaitingNode: Map<string, Set<string>>;
}

export function registerKubelet(sim: SimContext): void {
  const state: KubeletState = {
    runs: new Map(),
    ips: new PodIpAllocator(),
    warned: new Set(),
    awaitingNode: new Map(),
  };
  sim.mgr
    .controller('sim-kubelet')
    .for(Pods)
    .watches(Nodes, (node) => {
      const keys = state.awaitingNode.get(node.metadata.name ?? '');
      state.awaitingNode.delete(node.metadata.name ?? '');
      return keys ? [...keys] : [];
    })
    .withOptions({ concurrency: 8, fieldManager: FIELD_MANAGER })
    .complete((req, ctx) => syncPod(sim, state, req, ctx));
}

/** stops tracking a pod: its run, its IP and its logs */
function forget(sim: SimContext, state: KubeletState, key: string, ns: string, name: string): void {
  const run = state.runs.get(key);
  if (!run) return;
  state.runs.delete(key);
  state.ips.release(run.node, run.podIP);
  sim.logs.delete(ns, name, run.uid);
}

async function syncPod(sim: SimContext, state: KubeletState, req: Request, ctx: ReconcileContext) {
  const key = `${req.namespace}/${req.name}`;
  const pod = await ctx.cache.get(Pods, req.name, req.namespace);
  // a new pod under the same name is a new run
  if (!pod || state.runs.get(key)?.uid !== pod.metadata.uid) forget(sim, state, key, req.namespace, req.name);
  if (!pod?.spec.nodeName) return;
  if (pod.metadata.deletionTimestamp)
    return finishDeletion(ctx.client, pod, () => forget(sim, state, key, req.namespace, req.name));
  const node = await ctx.cache.get(Nodes, pod.spec.nodeName);
  if (!node) {
    // no kubelet runs it until the node registers (as on a real cluster)
    const waiting = state.awaitingNode.get(pod.spec.nodeName) ?? new Set<string>();
    state.awaitingNode.set(pod.spec.nodeName, waiting.add(key));
    return;
  }
  const uid = pod.metadata.uid ?? '';
  const sink: LogSink = {
    append: (container, lines) => sim.logs.append(req.namespace, req.name, uid, container, lines),
    restart: (container) => sim.logs.restart(req.namespace, req.name, uid, container),
  };
  const run = state.runs.get(key) ?? startRun(sim, state, key, pod, node, sink);
  if (!run) return;
  const now = sim.now();
  const events = advance(run, { pod, now, delays: sim.delays, logs: sink });
  const recorder = sim.recorders.for('kubelet', pod.spec.nodeName);
  for (const e of events) recorder.event(e.onNode ? node : pod, e.type, e.reason, e.note);
  const desired = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: req.name, namespace: req.namespace },
    status: podStatus(pod, run, now),
  };
  if (needsApply(desired, pod, FIELD_MANAGER, 'status')) {
    try {
      await ctx.client.applyStatus(desired);
    } catch (err) {
      // the pod was deleted meanwhile
      if (!isNotFound(err)) throw err;
    }
  }
  const due = nextDue(run);
  return Number.isFinite(due) ? { requeueAfter: Math.max(1, due - sim.now()) } : undefined;
}

/**
 * Starts running a pod this kubelet does not track yet, keeping the IP it already has; a pod whose
 * containers already started (a simulator restart) is adopted where it is rather than started again.
 * Terminal pods are not run again (undefined).
 */
function startRun(
  sim: SimContext,
  state: KubeletState,
  key: string,
  pod: Pod,
  node: Node,
  sink: LogSink,
): (PodRun & { node: string }) | undefined {
  if (isTerminal(pod)) return undefined;
  const nodeName = pod.spec.nodeName ?? '';
  const failure = podFailure(pod);
  if (failure.invalid && !state.warned.has(pod.metadata.uid ?? key)) {
    state.warned.add(pod.metadata.uid ?? key);
    sim.log.warn(invalidFailureMessage(pod, failure.invalid));
  }
  const hostIP = nodeIP(node);
  const existingIP = pod.status?.podIP;
  if (existingIP) state.ips.reserve(nodeName, existingIP);
  const podIP = existingIP ?? state.ips.allocate(node);
  const now = sim.now();
  const base = hasStarted(pod)
    ? adoptPodRun(pod, now, hostIP, podIP, sim.delays, sink)
    : newPodRun(pod, now, hostIP, podIP);
  const run = Object.assign(base, { node: nodeName });
  state.runs.set(key, run);
  return run;
}

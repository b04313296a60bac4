// The simulated default-scheduler: binds Pending pods to Nodes that fit them (scheduling.ts), or leaves
// them Pending with PodScheduled=False/Unschedulable and a FailedScheduling event. Pods waiting for room
// are retried when Nodes change, when pods go away, when their PVCs change, and every backoffMax.
// Binding uses the pods/binding subresource when the server has it, else sets spec.nodeName.

import { isNotFound, type KubeClient, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext, Request, Result } from '@modelplane/runtime/controller';
import type { SimContext } from './context.ts';
import { podFailure } from './failures.ts';
import {
  type Node,
  Nodes,
  type PersistentVolumeClaim,
  PersistentVolumeClaims,
  type Pod,
  Pods,
  type StorageClass,
  StorageClasses,
} from './kinds.ts';
import { decide, type NodeInfo, preFilterMessage } from './scheduling.ts';
import { isTerminal, keepTimes } from './util.ts';

const FIELD_MANAGER = 'default-scheduler';
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

function wantsThisScheduler(pod: Pod): boolean {
  const name = pod.spec.schedulerName;
  return !name || name === FIELD_MANAGER;
}

function needsScheduling(pod: Pod): boolean {
  return (
    !pod.spec.nodeName &&
    !pod.metadata.deletionTimestamp &&
    !isTerminal(pod) &&
    wantsThisScheduler(pod) &&
    (pod.spec.schedulingGates ?? []).length === 0
  );
}

/** the StorageClass a claim uses: its own, or the default when the field is absent */
export function claimClass(pvc: PersistentVolumeClaim, classes: readonly StorageClass[]): StorageClass | undefined {
  const name = pvc.spec.storageClassName;
  if (name === '') return undefined;
  if (name !== undefined && name !== null) return classes.find((c) => c.metadata.name === name);
  return defaultClass(classes);
}

export function defaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  // kube picks the newest default when several are marked
  return classes
    .filter((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true')
    .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''))[0];
}

type VolumeCheck = { blocked: string } | { waitForFirstConsumer: PersistentVolumeClaim[] };

async function checkVolumes(sim: SimContext, pod: Pod): Promise<VolumeCheck> {
  const delayed: PersistentVolumeClaim[] = [];
  for (const v of pod.spec.volumes ?? []) {
    const claim = v.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const pvc = await sim.mgr.cache.get(PersistentVolumeClaims, claim, pod.metadata.namespace);
    if (!pvc) return { blocked: `persistentvolumeclaim "${claim}" not found` };
    if (pvc.metadata.deletionTimestamp) return { blocked: `persistentvolumeclaim "${claim}" is being deleted` };
    if (pvc.status?.phase === 'Bound') continue;
    const sc = claimClass(pvc, await sim.mgr.cache.list(StorageClasses));
    if (sc?.volumeBindingMode === 'WaitForFirstConsumer') delayed.push(pvc);
    else return { blocked: 'pod has unbound immediate PersistentVolumeClaims' };
  }
  return { waitForFirstConsumer: delayed };
}

/** POST pods/binding (what kube-scheduler does); false when the server does not serve that subresource */
async function bindWithSubresource(client: KubeClient, pod: Pod, node: string): Promise<boolean> {
  const { name, namespace } = pod.metadata;
  try {
    await client.transport.request({
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(namespace ?? 'default')}/pods/${encodeURIComponent(name ?? '')}/binding`,
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace, uid: pod.metadata.uid },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      },
    });
    return true;
  } catch (err) {
    if (isNotFound(err) || (err as { code?: number }).code === 405) return false;
    throw err;
  }
}

export function registerScheduler(sim: SimContext): void {
  const scheduler = new Scheduler(sim);
  const allWaiting = () => [...scheduler.waiting];
  sim.mgr
    .controller('sim-scheduler')
    .for(Pods, { predicates: [(ev) => ev.type === 'delete' || needsScheduling(ev.obj as Pod)] })
    .watches(Nodes, allWaiting)
    .watches(Pods, allWaiting, {
      predicates: [
        (ev) =>
          ev.type === 'delete' || (ev.type === 'update' && isTerminal(ev.obj as Pod) && !isTerminal(ev.old as Pod)),
      ],
    })
    .watches(PersistentVolumeClaims, (pvc) => allWaiting().filter((k) => k.startsWith(`${pvc.metadata.namespace}/`)))
    .withOptions({ concurrency: 1, fieldManager: FIELD_MANAGER })
    .complete((req, ctx) => scheduler.reconcile(req, ctx));
}

type Decision = ReturnType<typeof decide>;

/** kube-scheduler for the simulated nodes: filter and score, then bind through pods/binding */
class Scheduler {
  /** pods that found no node; mapped back in when something that could make room changes */
  readonly waiting = new Set<string>();
  private readonly firstSeen = new Map<string, number>();
  private bindingSubresource = true;
  /** bound through pods/binding but not yet seen bound in the cache: still counted on their node */
  private readonly assumed = new Map<string, { uid: string; node: string }>();

  constructor(private readonly sim: SimContext) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const pod = await ctx.cache.get(Pods, req.name, req.namespace);
    if (!pod || !needsScheduling(pod)) {
      this.forget(key);
      return undefined;
    }
    const now = this.sim.now();
    const seen = this.firstSeen.get(key) ?? now;
    this.firstSeen.set(key, seen);
    if (now < seen + this.sim.delays.schedule) return { requeueAfter: seen + this.sim.delays.schedule - now };

    const nodes = await ctx.cache.list(Nodes);
    const infos: NodeInfo[] = await this.nodeInfos(ctx, nodes);
    const volumes = await checkVolumes(this.sim, pod);
    let decision: Decision;
    try {
      decision =
        'blocked' in volumes
          ? { unschedulable: preFilterMessage(nodes.length, volumes.blocked) }
          : decide(pod, infos, { forceUnschedulable: podFailure(pod).mode === 'Unschedulable' });
    } catch (err) {
      // a quantity the API server let through but nothing can parse: report it where a user looks
      decision = { unschedulable: (err as Error).message };
    }
    if ('unschedulable' in decision) return this.unschedulable(ctx, pod, key, now, decision.unschedulable);
    // WaitForFirstConsumer claims are provisioned for the chosen node before the pod is bound to it
    const unprovisioned = 'waitForFirstConsumer' in volumes ? volumes.waitForFirstConsumer : [];
    if (unprovisioned.length > 0) return this.selectNodeForClaims(ctx, unprovisioned, key, decision.node);
    return this.bind(ctx, pod, key, now, decision.node);
  }

  private forget(key: string): void {
    this.waiting.delete(key);
    this.firstSeen.delete(key);
  }

  /** the pods on each node, counting the ones bound but not yet seen bound */
  private async nodeInfos(ctx: ReconcileContext, nodes: readonly Node[]): Promise<NodeInfo[]> {
    const byNode = new Map<string, Pod[]>();
    for (const p of await ctx.cache.list(Pods)) {
      const k = `${p.metadata.namespace}/${p.metadata.name}`;
      const a = this.assumed.get(k);
      if (p.spec.nodeName || a?.uid !== p.metadata.uid) this.assumed.delete(k);
      const node = p.spec.nodeName ?? (a && a.uid === p.metadata.uid ? a.node : undefined);
      if (!node || isTerminal(p)) continue;
      const list = byNode.get(node);
      if (list) list.push(p);
      else byNode.set(node, [p]);
    }
    return nodes.map((node) => ({ node, pods: byNode.get(node.metadata.name ?? '') ?? [] }));
  }

  private async unschedulable(ctx: ReconcileContext, pod: Pod, key: string, now: number, message: string) {
    this.waiting.add(key);
    this.sim.recorders.for(FIELD_MANAGER).event(pod, 'Warning', 'FailedScheduling', message, 'Scheduling');
    await writeScheduled(ctx.client, pod, now, { status: 'False', reason: 'Unschedulable', message });
    return { requeueAfter: this.sim.delays.backoffMax };
  }

  private async selectNodeForClaims(
    ctx: ReconcileContext,
    claims: readonly PersistentVolumeClaim[],
    key: string,
    node: string,
  ): Promise<Result> {
    this.waiting.add(key);
    for (const pvc of claims) {
      if (pvc.metadata.annotations?.[SELECTED_NODE_ANNOTATION]) continue;
      const patch = { metadata: { annotations: { [SELECTED_NODE_ANNOTATION]: node } } };
      await ctx.client.patch(PersistentVolumeClaims, pvc.metadata.name!, pvc.metadata.namespace, patch, 'merge');
    }
    return { requeueAfter: this.sim.delays.backoffMax };
  }

  private async bind(ctx: ReconcileContext, pod: Pod, key: string, now: number, node: string) {
    const { name = '', namespace = '' } = pod.metadata;
    try {
      if (this.bindingSubresource) this.bindingSubresource = await bindWithSubresource(ctx.client, pod, node);
      if (this.bindingSubresource) this.assumed.set(key, { uid: pod.metadata.uid ?? '', node });
      else {
        await ctx.client.patch(Pods, name, namespace, { spec: { nodeName: node } }, 'merge');
        await writeScheduled(ctx.client, pod, now, { status: 'True' });
      }
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    this.forget(key);
    this.sim.recorders
      .for(FIELD_MANAGER)
      .event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`, 'Binding');
    return undefined;
  }
}

async function writeScheduled(
  client: KubeClient,
  pod: Pod,
  now: number,
  cond: { status: 'True' | 'False'; reason?: string; message?: string },
): Promise<void> {
  const condition = keepTimes({ type: 'PodScheduled', ...cond }, pod.status?.conditions, now);
  const desired = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
    status: { conditions: [condition] },
  };
  if (!needsApply(desired, pod, FIELD_MANAGER, 'status')) return;
  try {
    await client.applyStatus(desired);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

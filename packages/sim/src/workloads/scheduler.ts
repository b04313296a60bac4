// The simulated default-scheduler: binds Pending pods to Nodes that fit them (scheduling.ts), or leaves
// them Pending with PodScheduled=False/Unschedulable and a FailedScheduling event. Pods waiting for room
// are retried when Nodes change, when pods go away, when their PVCs change, and every backoffMax.
// Binding uses the pods/binding subresource when the server has it, else sets spec.nodeName.

import { isNotFound, type KubeClient, needsApply } from '@modelplane/runtime/client';
import type { SimContext } from './context.ts';
import { podFailure } from './failures.ts';
import {
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
  // pods that found no node; mapped back in when something that could make room changes
  const waiting = new Set<string>();
  const firstSeen = new Map<string, number>();
  let bindingSubresource = true;
  // bound through pods/binding but not yet seen bound in the cache: still counted on their node
  const assumed = new Map<string, { uid: string; node: string }>();
  const allWaiting = () => [...waiting];

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
    .complete(async (req, ctx) => {
      const key = `${req.namespace}/${req.name}`;
      const pod = await ctx.cache.get(Pods, req.name, req.namespace);
      if (!pod || !needsScheduling(pod)) {
        waiting.delete(key);
        firstSeen.delete(key);
        return;
      }
      const now = sim.now();
      const seen = firstSeen.get(key) ?? now;
      firstSeen.set(key, seen);
      if (now < seen + sim.delays.schedule) return { requeueAfter: seen + sim.delays.schedule - now };

      const nodes = await ctx.cache.list(Nodes);
      const byNode = new Map<string, Pod[]>();
      for (const p of await ctx.cache.list(Pods)) {
        const k = `${p.metadata.namespace}/${p.metadata.name}`;
        const a = assumed.get(k);
        if (p.spec.nodeName || a?.uid !== p.metadata.uid) assumed.delete(k);
        const node = p.spec.nodeName ?? (a && a.uid === p.metadata.uid ? a.node : undefined);
        if (!node || isTerminal(p)) continue;
        const list = byNode.get(node);
        if (list) list.push(p);
        else byNode.set(node, [p]);
      }
      const infos: NodeInfo[] = nodes.map((node) => ({ node, pods: byNode.get(node.metadata.name ?? '') ?? [] }));

      const volumes = await checkVolumes(sim, pod);
      let decision: ReturnType<typeof decide>;
      try {
        decision =
          'blocked' in volumes
            ? { unschedulable: preFilterMessage(nodes.length, volumes.blocked) }
            : decide(pod, infos, { forceUnschedulable: podFailure(pod).mode === 'Unschedulable' });
      } catch (err) {
        // a quantity the API server let through but nothing can parse: report it where a user looks
        decision = { unschedulable: (err as Error).message };
      }
      const recorder = sim.recorders.for(FIELD_MANAGER);

      if ('unschedulable' in decision) {
        waiting.add(key);
        recorder.event(pod, 'Warning', 'FailedScheduling', decision.unschedulable, 'Scheduling');
        await writeScheduled(ctx.client, pod, now, {
          status: 'False',
          reason: 'Unschedulable',
          message: decision.unschedulable,
        });
        return { requeueAfter: sim.delays.backoffMax };
      }

      // WaitForFirstConsumer claims are provisioned for the chosen node before the pod is bound to it
      const unprovisioned = 'waitForFirstConsumer' in volumes ? volumes.waitForFirstConsumer : [];
      if (unprovisioned.length > 0) {
        waiting.add(key);
        for (const pvc of unprovisioned) {
          if (pvc.metadata.annotations?.[SELECTED_NODE_ANNOTATION]) continue;
          await ctx.client.patch(
            PersistentVolumeClaims,
            pvc.metadata.name!,
            pvc.metadata.namespace,
            { metadata: { annotations: { [SELECTED_NODE_ANNOTATION]: decision.node } } },
            'merge',
          );
        }
        return { requeueAfter: sim.delays.backoffMax };
      }

      try {
        if (bindingSubresource) bindingSubresource = await bindWithSubresource(ctx.client, pod, decision.node);
        if (bindingSubresource) assumed.set(key, { uid: pod.metadata.uid ?? '', node: decision.node });
        else {
          await ctx.client.patch(Pods, req.name, req.namespace, { spec: { nodeName: decision.node } }, 'merge');
          await writeScheduled(ctx.client, pod, now, { status: 'True' });
        }
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      waiting.delete(key);
      firstSeen.delete(key);
      recorder.event(
        pod,
        'Normal',
        'Scheduled',
        `Successfully assigned ${req.namespace}/${req.name} to ${decision.node}`,
        'Binding',
      );
    });
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

// The simulated Deployment controller (kube-controller-manager's deployment-controller): one ReplicaSet per
// pod template, named `<deployment>-<pod-template-hash>`, rolled out per the strategy (deployment-rollout.ts),
// revision annotations, old ReplicaSets pruned to revisionHistoryLimit, and the Deployment's status with
// the Available / Progressing conditions.

import { controllerOf, controllerRef, isAlreadyExists, isNotFound, needsApply } from '../../kube/index.ts';
import type { SimContext } from './context.ts';
import {
  DESIRED_REPLICAS,
  deploymentStatus,
  desiredReplicas,
  fenceposts,
  MAX_REPLICAS,
  newReplicaSetReplicas,
  REVISION,
  rollingStep,
} from './deployment-rollout.ts';
import { type Deployment, Deployments, type ReplicaSet, ReplicaSets } from './kinds.ts';
import { equalTemplates, POD_TEMPLATE_HASH, templateHash } from './pod-template.ts';
import { parseTime } from './util.ts';

const FIELD_MANAGER = 'deployment-controller';
const NOT_COPIED = /^(kubectl\.kubernetes\.io\/last-applied-configuration|deployment\.kubernetes\.io\/)/;

function revisionOf(rs: ReplicaSet): number {
  const n = Number(rs.metadata.annotations?.[REVISION] ?? '0');
  return Number.isFinite(n) ? n : 0;
}

function replicaAnnotations(d: Deployment): Record<string, string> {
  return { [DESIRED_REPLICAS]: String(desiredReplicas(d)), [MAX_REPLICAS]: String(desiredReplicas(d) + fenceposts(d).maxSurge) };
}

function newReplicaSet(d: Deployment, replicas: number, revision: number): ReplicaSet {
  const hash = templateHash(d.spec.template, d.status?.collisionCount);
  const template = structuredClone(d.spec.template);
  template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
  const copied = Object.fromEntries(Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !NOT_COPIED.test(k)));
  const selector = structuredClone(d.spec.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace!,
      labels: template.metadata.labels!,
      annotations: { ...copied, ...replicaAnnotations(d), [REVISION]: String(revision) },
      ownerReferences: [controllerRef(d, { blockOwnerDeletion: true })],
    },
    spec: { replicas, ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}), selector, template },
  };
}

export function registerDeployments(sim: SimContext): void {
  sim.mgr
    .controller('sim-deployment')
    .for(Deployments)
    .owns(ReplicaSets)
    .withOptions({ concurrency: 4, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const d = await ctx.cache.get(Deployments, req.name, req.namespace);
      if (!d || d.metadata.deletionTimestamp) return;
      const recorder = sim.recorders.for(FIELD_MANAGER);
      const uid = d.metadata.uid ?? '';
      let all = (await ctx.cache.list(ReplicaSets, { index: { name: 'owner', value: uid }, namespace: req.namespace })).filter(
        (rs) => controllerOf(rs)?.uid === uid && !rs.metadata.deletionTimestamp,
      );
      let newRS = all.find((rs) => equalTemplates(rs.spec.template, d.spec.template));
      const olds = () => all.filter((rs) => rs !== newRS);
      const maxOldRevision = Math.max(0, ...olds().map(revisionOf));
      let created = false;

      const scale = async (rs: ReplicaSet, to: number) => {
        const from = rs.spec.replicas ?? 0;
        const patch = { metadata: { annotations: replicaAnnotations(d) }, spec: { replicas: to } };
        const updated = await ctx.client.patch(ReplicaSets, rs.metadata.name!, req.namespace, patch, 'merge');
        all = all.map((x) => (x === rs ? updated : x));
        if (newRS === rs) newRS = updated;
        if (from !== to) recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`);
      };

      const create = async (replicas: number): Promise<boolean> => {
        const desired = newReplicaSet(d, replicas, maxOldRevision + 1);
        try {
          newRS = await ctx.client.create(desired);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          const existing = await ctx.client.getOrUndefined(ReplicaSets, desired.metadata.name!, req.namespace);
          if (existing && controllerOf(existing)?.uid === uid && equalTemplates(existing.spec.template, d.spec.template)) {
            newRS = existing;
            all = [...all.filter((rs) => rs.metadata.uid !== existing.metadata.uid), existing];
            return true;
          }
          // the name is taken by a different template: a hash collision; the next hash tries another name
          await ctx.client.applyStatus({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: req.name, namespace: req.namespace }, status: { collisionCount: (d.status?.collisionCount ?? 0) + 1 } });
          return false;
        }
        all = [...all, newRS];
        created = true;
        if (replicas > 0) recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${newRS.metadata.name} from 0 to ${replicas}`);
        return true;
      };

      if (!d.spec.paused) {
        if (d.spec.strategy?.type === 'Recreate') {
          const running = olds().filter((rs) => (rs.spec.replicas ?? 0) > 0);
          for (const rs of running) await scale(rs, 0);
          const oldPodsGone = olds().every((rs) => (rs.status?.replicas ?? 0) === 0);
          if (running.length === 0 && oldPodsGone) {
            if (!newRS) {
              if (!(await create(desiredReplicas(d)))) return { requeue: true };
            } else if ((newRS.spec.replicas ?? 0) !== desiredReplicas(d)) await scale(newRS, desiredReplicas(d));
          }
        } else {
          if (!newRS && !(await create(newReplicaSetReplicas(d, olds(), 0)))) return { requeue: true };
          const current = newRS!;
          for (const [name, to] of rollingStep(d, current, olds())) {
            const rs = all.find((x) => x.metadata.name === name);
            if (rs) await scale(rs, to);
          }
        }
        if (newRS) await syncRevision(newRS, maxOldRevision);
        await cleanup();
      } else if (newRS && (newRS.spec.replicas ?? 0) !== desiredReplicas(d) && olds().every((rs) => (rs.spec.replicas ?? 0) === 0)) {
        // a paused Deployment still scales
        await scale(newRS, desiredReplicas(d));
      }

      const { status, recheckAfter } = deploymentStatus({ d, newRS, all, created, now: sim.now() });
      const desired = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: req.name, namespace: req.namespace }, status };
      if (needsApply(desired, d, FIELD_MANAGER, 'status')) {
        try {
          await ctx.client.applyStatus(desired);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      return recheckAfter !== undefined ? { requeueAfter: recheckAfter } : undefined;

      /** the new ReplicaSet carries the highest revision (a rollback re-uses an old one), and so does the Deployment */
      async function syncRevision(rs: ReplicaSet, maxOld: number): Promise<void> {
        let revision = revisionOf(rs);
        if (revision <= maxOld) {
          revision = maxOld + 1;
          const history = [rs.metadata.annotations?.['deployment.kubernetes.io/revision-history'], String(revisionOf(rs))].filter((x) => x && x !== '0').join(',');
          const annotations: Record<string, string> = { [REVISION]: String(revision), ...(history ? { 'deployment.kubernetes.io/revision-history': history } : {}) };
          newRS = await ctx.client.patch(ReplicaSets, rs.metadata.name!, req.namespace, { metadata: { annotations } }, 'merge');
          all = all.map((x) => (x === rs ? newRS! : x));
        }
        // through /status, as kube's deployment controller does (UpdateStatus): an annotation change on the
        // main resource would bump the Deployment's generation
        if (d!.metadata.annotations?.[REVISION] !== String(revision)) {
          await ctx.client.patch(Deployments, req.name, req.namespace, { metadata: { annotations: { [REVISION]: String(revision) } } }, 'merge', { subresource: 'status' });
        }
      }

      /** deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit */
      async function cleanup(): Promise<void> {
        const limit = d!.spec.revisionHistoryLimit ?? 10;
        const idle = olds()
          .filter((rs) => (rs.spec.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0)
          .sort((a, b) => revisionOf(a) - revisionOf(b) || (parseTime(a.metadata.creationTimestamp) ?? 0) - (parseTime(b.metadata.creationTimestamp) ?? 0));
        for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
          try {
            await ctx.client.delete(ReplicaSets, rs.metadata.name!, req.namespace, { propagationPolicy: 'Background', preconditions: { uid: rs.metadata.uid! } });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
          all = all.filter((x) => x !== rs);
        }
      }
    });
}

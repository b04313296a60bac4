// The simulated Deployment controller (kube-controller-manager's deployment-controller): one ReplicaSet per
// pod template, named `<deployment>-<pod-template-hash>`, rolled out per the strategy (deployment-rollout.ts),
// revision annotations, old ReplicaSets pruned to revisionHistoryLimit, and the Deployment's status with
// the Available / Progressing conditions.

import { isAlreadyExists, isNotFound, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext, Result } from '@modelplane/runtime/controller';
import type { EventRecorder } from '@modelplane/runtime/events';
import { controllerOf, controllerRef } from '@modelplane/runtime/meta';
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
  return {
    [DESIRED_REPLICAS]: String(desiredReplicas(d)),
    [MAX_REPLICAS]: String(desiredReplicas(d) + fenceposts(d).maxSurge),
  };
}

function newReplicaSet(d: Deployment, replicas: number, revision: number): ReplicaSet {
  const hash = templateHash(d.spec.template, d.status?.collisionCount);
  const template = structuredClone(d.spec.template);
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash },
  };
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
    spec: {
      replicas,
      ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
      selector,
      template,
    },
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
      if (!d || d.metadata.deletionTimestamp) return undefined;
      try {
        return await new DeploymentSync(sim, ctx, d, await ownedReplicaSets(ctx, d)).run();
      } catch (err) {
        // A write answered 404 because the Deployment was deleted while this pass ran (its status, its revision
        // annotation): its delete event follows, and a retry would only repeat the 404. Any other 404 (a
        // ReplicaSet gone) is retried.
        if (isNotFound(err) && (await gone(ctx, d))) return undefined;
        throw err;
      }
    });
}

/** is the Deployment this pass worked on no longer on the server (deleted, or replaced by a new one)? */
async function gone(ctx: ReconcileContext, d: Deployment): Promise<boolean> {
  const live = await ctx.client.getOrUndefined(Deployments, d.metadata.name!, d.metadata.namespace);
  return !live || live.metadata.uid !== d.metadata.uid;
}

/** the live ReplicaSets the Deployment controls */
async function ownedReplicaSets(ctx: ReconcileContext, d: Deployment): Promise<ReplicaSet[]> {
  const uid = d.metadata.uid ?? '';
  const owned = await ctx.cache.list(ReplicaSets, {
    index: { name: 'owner', value: uid },
    namespace: d.metadata.namespace ?? '',
  });
  return owned.filter((rs: ReplicaSet) => controllerOf(rs)?.uid === uid && !rs.metadata.deletionTimestamp);
}

/**
 * One pass of the Deployment controller over one Deployment: the rollout step its strategy allows (or only a
 * scale while paused), the revision bookkeeping, the history clean-up and the status. `all` and `newRS`
 * follow every write, so later steps see what earlier ones did.
 */
class DeploymentSync {
  private newRS: ReplicaSet | undefined;
  private created = false;
  private readonly maxOldRevision: number;
  private readonly recorder: EventRecorder;

  constructor(
    private readonly sim: SimContext,
    private readonly ctx: ReconcileContext,
    private readonly d: Deployment,
    private all: ReplicaSet[],
  ) {
    this.newRS = all.find((rs) => equalTemplates(rs.spec.template, d.spec.template));
    this.maxOldRevision = Math.max(0, ...this.olds().map(revisionOf));
    this.recorder = sim.recorders.for(FIELD_MANAGER);
  }

  async run(): Promise<Result | undefined> {
    const { d } = this;
    if (!d.spec.paused) {
      const rolled = d.spec.strategy?.type === 'Recreate' ? await this.recreate() : await this.rollingUpdate();
      if (!rolled) return { requeue: true };
      if (this.newRS) await this.syncRevision(this.newRS);
      await this.cleanup();
    } else if (
      this.newRS &&
      (this.newRS.spec.replicas ?? 0) !== desiredReplicas(d) &&
      this.olds().every((rs) => (rs.spec.replicas ?? 0) === 0)
    ) {
      // a paused Deployment still scales
      await this.scale(this.newRS, desiredReplicas(d));
    }
    return this.writeStatus();
  }

  private olds(): ReplicaSet[] {
    return this.all.filter((rs) => rs !== this.newRS);
  }

  /** Recreate: every old pod gone before the new ReplicaSet exists or scales; false on a name collision */
  private async recreate(): Promise<boolean> {
    const running = this.olds().filter((rs) => (rs.spec.replicas ?? 0) > 0);
    for (const rs of running) await this.scale(rs, 0);
    const oldPodsGone = this.olds().every((rs) => (rs.status?.replicas ?? 0) === 0);
    if (running.length > 0 || !oldPodsGone) return true;
    const want = desiredReplicas(this.d);
    if (!this.newRS) return this.create(want);
    if ((this.newRS.spec.replicas ?? 0) !== want) await this.scale(this.newRS, want);
    return true;
  }

  /** RollingUpdate: the new ReplicaSet (created if missing), then the scale steps maxSurge/maxUnavailable allow */
  private async rollingUpdate(): Promise<boolean> {
    if (!this.newRS && !(await this.create(newReplicaSetReplicas(this.d, this.olds(), 0)))) return false;
    for (const [name, to] of rollingStep(this.d, this.newRS!, this.olds())) {
      const rs = this.all.find((x) => x.metadata.name === name);
      if (rs) await this.scale(rs, to);
    }
    return true;
  }

  private async scale(rs: ReplicaSet, to: number): Promise<void> {
    const from = rs.spec.replicas ?? 0;
    const patch = { metadata: { annotations: replicaAnnotations(this.d) }, spec: { replicas: to } };
    const updated = await this.ctx.client.patch(ReplicaSets, rs.metadata.name!, rs.metadata.namespace, patch, 'merge');
    this.all = this.all.map((x) => (x === rs ? updated : x));
    if (this.newRS === rs) this.newRS = updated;
    if (from !== to)
      this.recorder.event(
        this.d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`,
      );
  }

  /** creates the new ReplicaSet; false when its name is taken by another template (a hash collision) */
  private async create(replicas: number): Promise<boolean> {
    const { d, ctx } = this;
    const desired = newReplicaSet(d, replicas, this.maxOldRevision + 1);
    let made: ReplicaSet;
    try {
      made = await ctx.client.create(desired);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await ctx.client.getOrUndefined(ReplicaSets, desired.metadata.name!, d.metadata.namespace);
      if (
        existing &&
        controllerOf(existing)?.uid === d.metadata.uid &&
        equalTemplates(existing.spec.template, d.spec.template)
      ) {
        this.newRS = existing;
        this.all = [...this.all.filter((rs) => rs.metadata.uid !== existing.metadata.uid), existing];
        return true;
      }
      // the next hash (collisionCount + 1) tries another name
      await ctx.client.applyStatus({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: d.metadata.name, namespace: d.metadata.namespace },
        status: { collisionCount: (d.status?.collisionCount ?? 0) + 1 },
      });
      return false;
    }
    this.newRS = made;
    this.all = [...this.all, made];
    this.created = true;
    if (replicas > 0)
      this.recorder.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${made.metadata.name} from 0 to ${replicas}`,
      );
    return true;
  }

  /** the new ReplicaSet carries the highest revision (a rollback re-uses an old one), and so does the Deployment */
  private async syncRevision(rs: ReplicaSet): Promise<void> {
    const { d, ctx } = this;
    let revision = revisionOf(rs);
    if (revision <= this.maxOldRevision) {
      revision = this.maxOldRevision + 1;
      const history = [rs.metadata.annotations?.['deployment.kubernetes.io/revision-history'], String(revisionOf(rs))]
        .filter((x) => x && x !== '0')
        .join(',');
      const annotations: Record<string, string> = {
        [REVISION]: String(revision),
        ...(history ? { 'deployment.kubernetes.io/revision-history': history } : {}),
      };
      const updated = await ctx.client.patch(
        ReplicaSets,
        rs.metadata.name!,
        rs.metadata.namespace,
        { metadata: { annotations } },
        'merge',
      );
      this.all = this.all.map((x) => (x === rs ? updated : x));
      this.newRS = updated;
    }
    // through /status, as kube's deployment controller does (UpdateStatus): an annotation change on the
    // main resource would bump the Deployment's generation
    if (d.metadata.annotations?.[REVISION] !== String(revision)) {
      await ctx.client.patch(
        Deployments,
        d.metadata.name!,
        d.metadata.namespace,
        { metadata: { annotations: { [REVISION]: String(revision) } } },
        'merge',
        { subresource: 'status' },
      );
    }
  }

  /** deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit */
  private async cleanup(): Promise<void> {
    const limit = this.d.spec.revisionHistoryLimit ?? 10;
    const idle = this.olds()
      .filter((rs) => (rs.spec.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0)
      .sort(
        (a, b) =>
          revisionOf(a) - revisionOf(b) ||
          (parseTime(a.metadata.creationTimestamp) ?? 0) - (parseTime(b.metadata.creationTimestamp) ?? 0),
      );
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
      try {
        await this.ctx.client.delete(ReplicaSets, rs.metadata.name!, rs.metadata.namespace, {
          propagationPolicy: 'Background',
          preconditions: { uid: rs.metadata.uid! },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.all = this.all.filter((x) => x !== rs);
    }
  }

  private async writeStatus(): Promise<Result | undefined> {
    const { d, ctx } = this;
    const { status, recheckAfter } = deploymentStatus({
      d,
      newRS: this.newRS,
      all: this.all,
      created: this.created,
      now: this.sim.now(),
    });
    const desired = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: d.metadata.name, namespace: d.metadata.namespace },
      status,
    };
    if (needsApply(desired, d, FIELD_MANAGER, 'status')) {
      try {
        await ctx.client.applyStatus(desired);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // deleted meanwhile: no progress deadline left to watch (a look again would patch it once more)
        return undefined;
      }
    }
    return recheckAfter !== undefined ? { requeueAfter: recheckAfter } : undefined;
  }
}

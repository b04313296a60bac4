// Carries out a PlanResult: deletes first, then server-side applies in the plan's order, each with the
// controller's field manager. An apply that would change nothing (judged against the cached object and
// our managedFields entry) is skipped, which is what makes a resync with nothing changed cost no writes.
// A failure does not stop the other writes; every failure comes back categorised, naming its object.

import {
  isConflict,
  isNotFound,
  type KindRef,
  type KubeClient,
  type KubeObject,
  needsApply,
  type OwnerReference,
} from '../kube/index.ts';
import { type CategorizedError, CategorizedError as CE, categorize, invalidSpecError } from './errors.ts';
import { type LabelPropagationContext, type LabelPropagator, propagateLabels } from './labels.ts';
import { describeRef, type ObjectRef, type PlannedApply, type PlanResult } from './plan.ts';

export type ApplyClient = Pick<KubeClient, 'apply' | 'delete'>;

export interface ApplyDeps<C = unknown> {
  client: ApplyClient;
  fieldManager: string;
  /** the cached copy of an object (undefined: not there); without it every planned object is applied */
  live?: (ref: ObjectRef) => Promise<KubeObject | undefined>;
  propagators?: readonly LabelPropagator<C>[];
  runtimeConfig?: C;
  /** owned children get blockOwnerDeletion: true (the owner cannot go before them under foreground deletion) */
  blockOwnerDeletion?: boolean;
}

export interface ApplyOutcome {
  errors: CategorizedError[];
  applied: number;
  skipped: number;
  deleted: number;
}

/** the controller ownerReference to `owner` (blockOwnerDeletion unset unless asked for, as the original does) */
function ownerRefTo(owner: KubeObject, blockOwnerDeletion: boolean): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid)
    throw new Error(
      `${owner.kind} "${name ?? ''}" has no metadata.uid: only an object read from the API server can own children`,
    );
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name,
    uid,
    controller: true,
    ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
  };
}

/** the object as it will be applied: labels propagated, and for owned objects the owner's namespace and ownerReference */
export function prepareForApply<C>(
  planned: PlannedApply,
  owner: KubeObject,
  propagators: readonly LabelPropagator<C>[],
  ctx: LabelPropagationContext<C>,
  blockOwnerDeletion = false,
): KubeObject {
  let obj = propagateLabels(planned.object, propagators, ctx);
  if (planned.mode !== 'owned') return obj;
  const ownerNs = owner.metadata.namespace;
  const childNs = obj.metadata.namespace;
  if (ownerNs && childNs && childNs !== ownerNs) {
    throw invalidSpecError(
      'InvalidChild',
      `${describeRef(obj)}: an owned object must be in its owner's namespace "${ownerNs}"`,
    );
  }
  const ref = ownerRefTo(owner, blockOwnerDeletion);
  const others = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  if (others.some((r) => r.controller)) {
    throw invalidSpecError(
      'InvalidChild',
      `${describeRef(obj)}: already names another controller owner; use applyWithoutOwnerRef or drop that reference`,
    );
  }
  obj = {
    ...obj,
    metadata: {
      ...obj.metadata,
      ...(ownerNs && !childNs ? { namespace: ownerNs } : {}),
      ownerReferences: [...others, ref],
    },
  };
  return obj;
}

function withObject(err: unknown, verb: string, ref: ObjectRef): CategorizedError {
  const c = categorize(err);
  return new CE(c.category, c.reason, `${verb} ${describeRef(ref)}: ${c.message}`, { cause: err });
}

async function liveOf<C>(deps: ApplyDeps<C>, ref: ObjectRef): Promise<KubeObject | undefined | 'unknown'> {
  if (!deps.live) return 'unknown';
  try {
    return await deps.live(ref);
  } catch {
    // the cache cannot answer (kind not served yet, …): write and let the server decide
    return 'unknown';
  }
}

export async function executePlan<C>(plan: PlanResult, owner: KubeObject, deps: ApplyDeps<C>): Promise<ApplyOutcome> {
  const out: ApplyOutcome = { errors: [], applied: 0, skipped: 0, deleted: 0 };
  for (const ref of plan.deletes) {
    const live = await liveOf(deps, ref);
    if (live === undefined) continue;
    try {
      // a ref carrying a uid deletes exactly that object: a newer one of the same name is left alone
      const uid = ref.metadata.uid;
      await deps.client.delete(ref as KindRef, ref.metadata.name ?? '', ref.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(uid ? { preconditions: { uid } } : {}),
      });
      out.deleted++;
    } catch (err) {
      // gone already, or (uid precondition) replaced by another object of that name: nothing of ours to delete
      if (!isNotFound(err) && !(ref.metadata.uid && isConflict(err))) out.errors.push(withObject(err, 'delete', ref));
    }
  }
  const ctx: LabelPropagationContext<C> = { parent: owner, runtimeConfig: deps.runtimeConfig };
  for (const planned of plan.applies) {
    let desired: KubeObject;
    try {
      desired = prepareForApply(planned, owner, deps.propagators ?? [], ctx, deps.blockOwnerDeletion);
    } catch (err) {
      out.errors.push(err instanceof CE ? err : withObject(err, 'prepare', planned.object));
      continue;
    }
    const live = await liveOf(deps, desired);
    if (live !== 'unknown' && !needsApply(desired, live, deps.fieldManager)) {
      out.skipped++;
      continue;
    }
    try {
      await deps.client.apply(desired, { fieldManager: deps.fieldManager, force: true });
      out.applied++;
    } catch (err) {
      out.errors.push(withObject(err, 'apply', desired));
    }
  }
  return out;
}

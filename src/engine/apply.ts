// Carries out a PlanResult: deletes first, then server-side applies in the plan's order, each with the
// controller's field manager. An apply that would change nothing (judged against the cached object and
// our managedFields entry) is skipped, which is what makes a resync with nothing changed cost no writes.
// A failure does not stop the other writes unless the plan asks for it (stopAtFirstFailure); every failure
// comes back categorised, naming its object. An object planned with readBack is read from the API server
// after its write and compared with the plan before anything after it is written.

import { isConflict, isNotFound, type KubeClient, needsApply } from '@modelplane/runtime/client';
import { isSubset, type KindRef, type KubeObject, type OwnerReference } from '@modelplane/runtime/meta';
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
  /** a live read from the API server (undefined: not there), for objects planned with readBack */
  readBack?: (ref: ObjectRef) => Promise<KubeObject | undefined>;
  /** turns a failed write's categorised error into the controller's own (reason, category) */
  classifyWriteError?: (err: CategorizedError) => CategorizedError;
}

/** the write that failed and ended a plan planned with stopAtFirstFailure */
export interface FailedWrite {
  verb: 'delete' | 'apply' | 'read back';
  ref: ObjectRef;
  error: CategorizedError;
}

export interface ApplyOutcome {
  errors: CategorizedError[];
  applied: number;
  skipped: number;
  deleted: number;
  /** the first failed write, when the plan stops there (stopAtFirstFailure) */
  stoppedAt?: FailedWrite;
  /** planned writes not attempted because the plan stopped */
  notAttempted: number;
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

/** null when `live` carries what was written (the server may add fields, never change ours); otherwise what is wrong */
function readBackProblem(desired: KubeObject, live: KubeObject | undefined): string | null {
  if (!live) return 'it is not there';
  const { metadata, apiVersion: _v, kind: _k, status: _s, ...content } = desired;
  if (!isSubset(metadata.labels ?? {}, live.metadata.labels ?? {})) return 'its labels differ from the ones written';
  const changed = Object.keys(content).find((k) => !isSubset(content[k], live[k]));
  return changed === undefined ? null : `its ${changed} differs from what was written`;
}

async function readBack<C>(deps: ApplyDeps<C>, desired: KubeObject): Promise<CategorizedError | undefined> {
  if (!deps.readBack) return undefined;
  let problem: string | null;
  try {
    problem = readBackProblem(desired, await deps.readBack(desired));
  } catch (err) {
    return withObject(err, 'read back', desired);
  }
  if (problem === null) return undefined;
  // another writer got there between our write and the read (or the server kept something else): retry
  return new CE('Infrastructure', 'ReadBackMismatch', `read back ${describeRef(desired)}: ${problem}`);
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

/** one planned write at a time, ending the plan at the first failure when it asks for that */
class PlanRun<C> {
  readonly out: ApplyOutcome = { errors: [], applied: 0, skipped: 0, deleted: 0, notAttempted: 0 };

  constructor(
    private readonly plan: PlanResult,
    private readonly deps: ApplyDeps<C>,
  ) {}

  /** records a failed write; true when the plan must stop here */
  fail(verb: FailedWrite['verb'], ref: ObjectRef, err: CategorizedError, remaining: number): boolean {
    const error = this.deps.classifyWriteError ? this.deps.classifyWriteError(err) : err;
    this.out.errors.push(error);
    if (!this.plan.stopsAtFirstFailure) return false;
    this.out.stoppedAt = { verb, ref, error };
    this.out.notAttempted = remaining;
    return true;
  }
}

async function deleteAll<C>(run: PlanRun<C>, deps: ApplyDeps<C>, refs: ObjectRef[], after: number): Promise<boolean> {
  for (const [i, ref] of refs.entries()) {
    const live = await liveOf(deps, ref);
    if (live === undefined) continue;
    try {
      // a ref carrying a uid deletes exactly that object: a newer one of the same name is left alone
      const uid = ref.metadata.uid;
      await deps.client.delete(ref as KindRef, ref.metadata.name ?? '', ref.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(uid ? { preconditions: { uid } } : {}),
      });
      run.out.deleted++;
    } catch (err) {
      // gone already, or (uid precondition) replaced by another object of that name: nothing of ours to delete
      if (isNotFound(err) || (ref.metadata.uid && isConflict(err))) continue;
      if (run.fail('delete', ref, withObject(err, 'delete', ref), refs.length - i - 1 + after)) return false;
    }
  }
  return true;
}

export async function executePlan<C>(plan: PlanResult, owner: KubeObject, deps: ApplyDeps<C>): Promise<ApplyOutcome> {
  const run = new PlanRun(plan, deps);
  const applies = plan.applies;
  if (!(await deleteAll(run, deps, plan.deletes, applies.length))) return run.out;
  const ctx: LabelPropagationContext<C> = { parent: owner, runtimeConfig: deps.runtimeConfig };
  for (const [i, planned] of applies.entries()) {
    const remaining = applies.length - i - 1;
    let desired: KubeObject;
    try {
      desired = prepareForApply(planned, owner, deps.propagators ?? [], ctx, deps.blockOwnerDeletion);
    } catch (err) {
      const e = err instanceof CE ? err : withObject(err, 'prepare', planned.object);
      if (run.fail('apply', planned.object, e, remaining)) return run.out;
      continue;
    }
    const live = await liveOf(deps, desired);
    if (live !== 'unknown' && !needsApply(desired, live, deps.fieldManager)) {
      run.out.skipped++;
      continue;
    }
    try {
      await deps.client.apply(desired, { fieldManager: deps.fieldManager, force: true });
      run.out.applied++;
    } catch (err) {
      if (run.fail('apply', desired, withObject(err, 'apply', desired), remaining)) return run.out;
      continue;
    }
    const readBackError = planned.readBack ? await readBack(deps, desired) : undefined;
    if (readBackError && run.fail('read back', desired, readBackError, remaining)) return run.out;
  }
  return run.out;
}

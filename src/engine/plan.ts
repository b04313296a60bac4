// PlanResult: what a planner wants the cluster to look like. It is plain data: the planner adds objects
// to apply (owned or shared) and to delete, and may ask to be called again later; the pipeline does the
// writes, in a deterministic order, after label propagation.

import { type KubeObject, parseApiVersion } from '@modelplane/runtime/meta';

export type ApplyMode = 'owned' | 'shared';

export interface PlannedApply {
  object: KubeObject;
  /** owned: gets a controller ownerReference to the reconciled object (garbage-collected with it) */
  mode: ApplyMode;
  /** once written, read back from the API server (not the cache) before any later write of the plan */
  readBack?: boolean;
}

export interface PlanApplyOptions {
  /**
   * after writing it, read the object back from the API server and compare it with what was planned; a
   * missing or different object is a failed write (with stopAtFirstFailure, nothing after it is written)
   */
  readBack?: boolean;
}

/** what a delete needs: the kind and the object's name (and its uid, to delete exactly that object) */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string };
}

export class PlanResult {
  private readonly appliesByKey = new Map<string, PlannedApply>();
  private readonly deletesByKey = new Map<string, ObjectRef>();
  private requeueMs: number | undefined;
  private stopAtFailure = false;

  /** create or update `obj` with a controller ownerReference to the reconciled object */
  apply(obj: KubeObject, opts: PlanApplyOptions = {}): this {
    return this.add(obj, 'owned', opts);
  }

  /** create or update `obj` without an ownerReference: it survives the reconciled object's deletion */
  applyWithoutOwnerRef(obj: KubeObject, opts: PlanApplyOptions = {}): this {
    return this.add(obj, 'shared', opts);
  }

  /**
   * the first failed write (delete, apply or read-back) ends the plan: later writes are not attempted, so
   * an object that depends on an earlier one (a Deployment mounting a new ConfigMap) is never switched
   * to something that was not written
   */
  stopAtFirstFailure(): this {
    this.stopAtFailure = true;
    return this;
  }

  get stopsAtFirstFailure(): boolean {
    return this.stopAtFailure;
  }

  delete(obj: ObjectRef): this {
    const key = objectKey(obj);
    if (this.appliesByKey.has(key)) throw new Error(`plan: ${describeRef(obj)} is both applied and deleted`);
    this.deletesByKey.set(key, obj);
    return this;
  }

  /** reconcile again after `ms` milliseconds (the shortest of several requests wins) */
  requeueAfter(ms: number): this {
    if (!(ms > 0) || !Number.isFinite(ms))
      throw new Error(`plan: requeueAfter needs a positive number of milliseconds, got ${ms}`);
    this.requeueMs = this.requeueMs === undefined ? ms : Math.min(this.requeueMs, ms);
    return this;
  }

  get requeueAfterMs(): number | undefined {
    return this.requeueMs;
  }

  /** planned applies in apply order */
  get applies(): PlannedApply[] {
    return [...this.appliesByKey.values()].sort((a, b) => compareForApply(a.object, b.object));
  }

  /** planned deletes in delete order (the reverse of apply order) */
  get deletes(): ObjectRef[] {
    return [...this.deletesByKey.values()].sort((a, b) => compareForApply(b, a));
  }

  get isEmpty(): boolean {
    return this.appliesByKey.size === 0 && this.deletesByKey.size === 0;
  }

  private add(obj: KubeObject, mode: ApplyMode, opts: PlanApplyOptions): this {
    if (!obj?.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new Error(
        `plan: an object to apply needs apiVersion, kind and metadata.name (got ${obj?.kind ?? '?'} "${obj?.metadata?.name ?? ''}")`,
      );
    }
    const key = objectKey(obj);
    if (this.appliesByKey.has(key)) throw new Error(`plan: ${describeRef(obj)} is planned twice`);
    if (this.deletesByKey.has(key)) throw new Error(`plan: ${describeRef(obj)} is both applied and deleted`);
    this.appliesByKey.set(key, { object: obj, mode, ...(opts.readBack ? { readBack: true } : {}) });
    return this;
  }
}

export function describeRef(obj: ObjectRef): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
  return `${obj.kind} ${ns}${obj.metadata.name ?? ''}`;
}

function objectKey(obj: ObjectRef): string {
  return [parseApiVersion(obj.apiVersion).group, obj.kind, obj.metadata.namespace ?? '', obj.metadata.name ?? ''].join(
    '/',
  );
}

// Helm's install order: what others depend on goes first (namespaces, accounts, config, storage, services
// before workloads). Kinds not listed (custom resources) come after, sorted by group and kind.
const KIND_ORDER = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'Ingress',
  'APIService',
];
const KIND_RANK = new Map(KIND_ORDER.map((k, i) => [k, i]));

function rank(obj: ObjectRef): number {
  const group = parseApiVersion(obj.apiVersion).group;
  const builtin = group === '' || !group.includes('.') || group.endsWith('.k8s.io');
  return builtin ? (KIND_RANK.get(obj.kind) ?? KIND_ORDER.length) : KIND_ORDER.length;
}

/** kind rank, then group, kind, namespace, name */
function compareForApply(a: ObjectRef, b: ObjectRef): number {
  return (
    rank(a) - rank(b) ||
    cmp(parseApiVersion(a.apiVersion).group, parseApiVersion(b.apiVersion).group) ||
    cmp(a.kind, b.kind) ||
    cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
    cmp(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

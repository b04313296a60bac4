// The part of ModelDeployment.status a provider owns (docs/kubeairunway.md's ownership table): phase, message,
// provider.resourceName/resourceKind, replicas, endpoint and the conditions ProviderCompatible,
// ResourceCreated and Ready. Pure: from what the reconcile found to that status, with the engine's
// ConditionManager keeping lastTransitionTime unless a condition's status or reason changes and deciding
// which transitions become events.

import type { KubeObject } from '@modelplane/runtime/meta';
import {
  CONDITION_PROVIDER_COMPATIBLE,
  CONDITION_READY,
  CONDITION_RESOURCE_CREATED,
  type ModelDeploymentPhase,
} from '../../../apis/kubeairunway/index.ts';
import { asInfo, asWarning, type Condition, ConditionManager, quietWhenNew, silent } from '../../../engine/index.ts';
import type { MappedStatus } from './definition.ts';
import { refOf } from './desired.ts';
import { Reason } from './names.ts';

/** exactly the status fields a provider writes; nothing else is ever sent */
export interface ProviderStatus {
  phase?: ModelDeploymentPhase;
  message?: string;
  provider?: { resourceName?: string; resourceKind?: string };
  replicas?: { desired?: number; ready?: number; available?: number };
  endpoint?: { service?: string; port?: number; url?: string };
  conditions?: Condition[];
}

/** what the reconcile found, as far as status is concerned */
export type StatusOutcome =
  /** the spec fails validation (the webhook was bypassed): nothing reaches the upstream object */
  | { kind: 'invalid'; message: string }
  /**
   * `serving`: the upstream object built from the last compatible spec is still there (the edit that made
   * the spec incompatible was stored while the webhook was down): it keeps serving, and its replicas and
   * endpoint are still reported (the gateway routes by them)
   */
  | { kind: 'incompatible'; messages: string[]; serving?: { object: KubeObject; mapped: MappedStatus } }
  /** nothing can be built or applied until the spec (or the conflicting object) changes */
  | {
      kind: 'failed';
      reason: 'InvalidOverrides' | 'TransformFailed' | 'ApplyFailed' | 'ResourceConflict';
      message: string;
    }
  /** the upstream CRD is not installed */
  | { kind: 'pending'; reason: 'CRDNotInstalled'; message: string }
  /**
   * spec.model.storage is not ready for the serving resource yet (a claim missing, the model downloading);
   * `failed`: it will not be until the user acts or the download is retried
   */
  | { kind: 'storage'; reason: string; message: string; failed: boolean; created: boolean }
  /** the upstream object is being deleted (to be recreated, or by someone else) */
  | { kind: 'replacing'; reason: 'RecreatingResource' | 'WaitingForDeletion'; message: string }
  | { kind: 'created'; object: KubeObject; mapped: MappedStatus }
  /** cleanup on deletion: everything as it was, phase Terminating */
  | { kind: 'terminating'; message: string };

export interface StatusContext {
  /** the upstream kind, for messages */
  kind: string;
  now: number;
  /** the deployment's metadata.generation, recorded on the conditions */
  generation?: number;
}

function compact<T extends Record<string, unknown>>(o: T | undefined): T | undefined {
  if (!o) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return Object.keys(out).length > 0 ? (out as T) : undefined;
}

const compatible = (cm: ConditionManager) =>
  cm.markTrue(
    CONDITION_PROVIDER_COMPATIBLE,
    Reason.CompatibilityVerified,
    'The deployment configuration is compatible with this provider',
    silent(),
  );

/**
 * The provider's status for `outcome`, starting from what it owned before (`before` is not modified). The
 * conditions go into `cm` (the engine's, in a pipeline run), a fresh one over `before` when omitted.
 */
export function computeProviderStatus(
  before: ProviderStatus,
  outcome: StatusOutcome,
  ctx: StatusContext,
  cm = new ConditionManager(before.conditions ?? [], {
    now: () => ctx.now,
    ...(ctx.generation !== undefined ? { generation: ctx.generation } : {}),
  }),
): { status: ProviderStatus; conditions: ConditionManager } {
  if (outcome.kind === 'terminating' || outcome.kind === 'invalid') {
    // everything as it was (the resource keeps serving the last valid spec), with the phase that says why
    for (const c of before.conditions ?? []) cm.keep(c.type);
    const status: ProviderStatus = {
      ...structuredClone(before),
      phase: outcome.kind === 'invalid' ? 'Pending' : 'Terminating',
      message: outcome.message,
    };
    if (outcome.kind === 'invalid')
      cm.markFalse(CONDITION_READY, Reason.ValidationFailed, outcome.message, asWarning());
    const conditions = cm.list();
    if (conditions.length > 0) status.conditions = conditions;
    else delete status.conditions;
    return { status, conditions: cm };
  }

  const status: ProviderStatus = {};
  const set = (phase: ModelDeploymentPhase, message: string) => {
    status.phase = phase;
    status.message = message;
  };
  switch (outcome.kind) {
    case 'incompatible': {
      const message = outcome.messages.join('; ');
      cm.markFalse(CONDITION_PROVIDER_COMPATIBLE, Reason.IncompatibleConfiguration, message, asWarning());
      cm.markFalse(CONDITION_READY, Reason.IncompatibleConfiguration, message, silent());
      set('Failed', message);
      if (outcome.serving) {
        cm.keep(CONDITION_RESOURCE_CREATED);
        servingFields(status, outcome.serving.object, outcome.serving.mapped, ctx.kind);
      } else cm.delete(CONDITION_RESOURCE_CREATED);
      break;
    }
    case 'failed':
    case 'pending':
      compatible(cm);
      cm.markFalse(CONDITION_RESOURCE_CREATED, outcome.reason, outcome.message, asWarning());
      cm.markFalse(CONDITION_READY, outcome.reason, outcome.message, silent());
      set(outcome.kind === 'failed' ? 'Failed' : 'Pending', outcome.message);
      break;
    case 'storage':
      compatible(cm);
      // an upstream object that exists keeps serving what it was built from; none is created before the storage is ready
      if (!outcome.created) cm.markFalse(CONDITION_RESOURCE_CREATED, outcome.reason, outcome.message, silent());
      cm.markFalse(CONDITION_READY, outcome.reason, outcome.message, silent());
      set(outcome.failed ? 'Failed' : 'Pending', outcome.message);
      break;
    case 'replacing':
      compatible(cm);
      // the recreate itself is announced by its own event when the delete is issued (reconciler.ts), naming the fields
      cm.markFalse(CONDITION_RESOURCE_CREATED, outcome.reason, outcome.message, silent());
      cm.markFalse(CONDITION_READY, Reason.DeploymentInProgress, outcome.message, silent());
      set('Deploying', outcome.message);
      break;
    case 'created':
      compatible(cm);
      created(status, cm, outcome.object, outcome.mapped, ctx.kind);
      break;
  }
  const conditions = cm.list();
  if (conditions.length > 0) status.conditions = conditions;
  return { status, conditions: cm };
}

/** the in-cluster URL of a Service port: what a client in the cluster (or a Llama Stack provider) points at */
export function endpointUrl(service: string, namespace: string | undefined, port: number | undefined): string {
  return `http://${service}.${namespace ?? 'default'}.svc.cluster.local${port !== undefined && port !== 80 ? `:${port}` : ''}`;
}

function created(
  status: ProviderStatus,
  cm: ConditionManager,
  object: KubeObject,
  mapped: MappedStatus,
  kind: string,
): void {
  // conditions True at the first status write are told by the status alone; a resource that appears
  // after a failure (CRD installed, conflict gone), or pods that become ready after Deploying, get events
  cm.markTrue(
    CONDITION_RESOURCE_CREATED,
    Reason.ResourceCreated,
    `${kind} ${refOf(object)} created`,
    asInfo(),
    quietWhenNew(),
  );
  const ready = mapped.replicas?.ready;
  if (mapped.phase === 'Running' && ready === 0 && mapped.replicas?.desired === 0) {
    // what was asked for, and nothing serves: never Ready
    status.phase = 'Running';
    status.message = `${kind} created and scaled to zero (spec.scaling.replicas is 0): no pod serves the model`;
    cm.markFalse(CONDITION_READY, Reason.ScaledToZero, status.message, asInfo());
  } else if (mapped.phase === 'Running' && ready === 0) {
    // the upstream says it runs, but no pod is ready (yet, or any more): Ready needs a ready pod
    status.phase = 'Deploying';
    status.message = `${kind} created, waiting for pods to be ready: 0/${mapped.replicas?.desired ?? '?'} ready`;
    cm.markFalse(CONDITION_READY, Reason.DeploymentInProgress, status.message, silent());
  } else if (mapped.phase === 'Running') {
    status.phase = 'Running';
    status.message = mapped.message || `${kind} created, pods are ready`;
    cm.markTrue(CONDITION_READY, Reason.DeploymentReady, status.message, asInfo(), quietWhenNew());
  } else if (mapped.phase === 'Failed') {
    status.phase = 'Failed';
    status.message = mapped.message || `${kind} ${refOf(object)} failed`;
    cm.markFalse(CONDITION_READY, Reason.DeploymentFailed, status.message, asWarning());
  } else if (mapped.phase === 'Pending') {
    // the status-mapping table (docs/kubeairunway.md): KubeRay serviceStatus Pending (and Dynamo pending) is Pending
    status.phase = 'Pending';
    status.message = `${kind} created, pending in its operator${mapped.message ? `: ${mapped.message}` : ''}`;
    cm.markFalse(CONDITION_READY, Reason.DeploymentPending, status.message, silent());
  } else {
    status.phase = 'Deploying';
    status.message = `${kind} created, waiting for pods to be ready${mapped.message ? `: ${mapped.message}` : ''}`;
    cm.markFalse(CONDITION_READY, Reason.DeploymentInProgress, status.message, silent());
  }
  servingFields(status, object, mapped, kind);
}

/** what an existing upstream object serves: its name, replicas and endpoint */
function servingFields(status: ProviderStatus, object: KubeObject, mapped: MappedStatus, kind: string): void {
  status.provider = { resourceName: object.metadata.name ?? '', resourceKind: kind };
  const replicas = compact(mapped.replicas);
  if (replicas) status.replicas = replicas;
  const endpoint = compact(mapped.endpoint);
  if (endpoint)
    status.endpoint = {
      ...endpoint,
      ...(endpoint.service ? { url: endpointUrl(endpoint.service, object.metadata.namespace, endpoint.port) } : {}),
    };
}

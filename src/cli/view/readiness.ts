// Whether an object a user applied is Ready, with a one-word status and a reason, for any kind: the
// Ready condition when there is one, the Deployment availability rule, and the phase/status fields the
// operator's own kinds report.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { InferenceProviderConfig } from '../../apis/kubeairunway/index.ts';
import { providerReadiness } from '../../controllers/kubeairunway/selection/index.ts';

export interface Readiness {
  ready: boolean;
  status: string;
  reason: string;
  /** not ready because a condition is Unknown (not yet known): a wait, whatever its reason's words */
  waiting?: boolean;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** words that mean done, compared case-insensitively: Dynamo reports `successful`, KServe `Ready` */
const READY_PHASES = new Set(['running', 'ready', 'succeeded', 'successful', 'bound', 'active', 'available']);
const isReadyWord = (w: string) => READY_PHASES.has(w.toLowerCase());
/** kinds that have no status to wait for: they are done once they exist */
const NO_STATUS_KINDS = new Set([
  'ConfigMap',
  'Secret',
  'Service',
  'ServiceAccount',
  'Endpoints',
  'Role',
  'RoleBinding',
]);

/** a Gateway API route: accepted by every parent gateway it names */
function routeReadiness(status: Record<string, unknown>): Readiness {
  const parents = Array.isArray(status.parents) ? (status.parents as Array<{ conditions?: Condition[] }>) : [];
  if (parents.length === 0) return { ready: false, status: 'Pending', reason: 'no gateway has accepted it yet' };
  const refused = parents
    .map((p) => p.conditions?.find((c) => c.type === 'Accepted'))
    .find((c) => c?.status !== 'True');
  return refused
    ? { ready: false, status: 'NotAccepted', reason: refused.reason ?? '' }
    : { ready: true, status: 'Accepted', reason: '' };
}

/** conditions whose True means trouble (Kubernetes' "abnormal-true" polarity) */
const ABNORMAL_TRUE = /Degraded|Stalled|Failed|Error|Pressure|Unavailable/;

/** no Ready condition and no phase: ready when every condition is in its good state, else the first that is not */
function fromConditions(conditions: Condition[], stale: boolean): Readiness {
  const bad = conditions.find((c) => (ABNORMAL_TRUE.test(c.type ?? '') ? c.status === 'True' : c.status !== 'True'));
  if (bad)
    return {
      ready: false,
      status: bad.status === 'Unknown' ? 'Progressing' : 'NotReady',
      reason: `${bad.type}: ${bad.reason ?? bad.status}`,
      ...(bad.status === 'Unknown' ? { waiting: true } : {}),
    };
  return { ready: !stale, status: 'Ready', reason: conditions.at(-1)?.reason ?? '' };
}

/** how long a new HorizontalPodAutoscaler may wait for its metric before that counts as failing */
const HPA_FIRST_METRIC_MS = 60_000;

/**
 * An HPA reads its metric from someone else (the autoscaler's wva_desired_replicas, KEDA): in its first minute
 * a metric that is not there yet (ScalingActive=False FailedGet…Metric) is a wait for that first value.
 */
function hpaReadiness(obj: KubeObject, conditions: Condition[], stale: boolean, now: number): Readiness {
  // ScalingLimited says whether the count was clamped to min/max (True: TooFewReplicas / TooManyReplicas,
  // False: DesiredWithinRange): either is a working HPA, and counting False as not ready held `modelplane dev
  // --exit-when-ready` until the autoscaler's decision happened to fall to minReplicas (a minute and more)
  const judged = conditions.filter((c) => c.type !== 'ScalingLimited');
  const r = judged.length > 0 ? fromConditions(judged, stale) : { ready: false, status: 'Pending', reason: '' };
  const active = conditions.find((c) => c.type === 'ScalingActive');
  const age = now - Date.parse(obj.metadata.creationTimestamp ?? '');
  const firstMetric = active?.status === 'False' && /^FailedGet\w*Metric$/.test(active.reason ?? '');
  return !r.ready && firstMetric && age < HPA_FIRST_METRIC_MS ? { ...r, waiting: true } : r;
}

export function readinessOf(obj: KubeObject, now = Date.now()): Readiness {
  return gatewayGate(obj, kindReadiness(obj, now));
}

/**
 * A ModelDeployment routed through the shared Gateway is ready once its route is too: GatewayReady True
 * (or absent: not routed, or GatewayDisabled: routing turned off) (docs/kubeairunway.md, "Gateway").
 */
function gatewayGate(obj: KubeObject, r: Readiness): Readiness {
  if (obj.kind !== 'ModelDeployment' || !r.ready) return r;
  const status = (obj.status ?? {}) as { conditions?: Condition[] };
  const gw = status.conditions?.find((c) => c.type === 'GatewayReady');
  if (!gw || gw.status === 'True' || gw.reason === 'GatewayDisabled') return r;
  return { ready: false, status: 'Routing', reason: `GatewayReady: ${gw.reason ?? gw.status}` };
}

function kindReadiness(obj: KubeObject, now: number): Readiness {
  if (obj.kind === 'InferenceProviderConfig') {
    // a provider is ready by its own report and a fresh heartbeat, exactly as selection judges it
    const r = providerReadiness(obj as InferenceProviderConfig, now);
    return { ready: r.ready, status: r.ready ? 'Ready' : 'NotReady', reason: r.ready ? '' : (r.reason ?? '') };
  }
  const status = (obj.status ?? {}) as Record<string, unknown>;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const generation = obj.metadata.generation;
  const observed = status.observedGeneration as number | undefined;
  const stale = generation !== undefined && observed !== undefined && observed < generation;

  if (NO_STATUS_KINDS.has(obj.kind) && Object.keys(status).length === 0)
    return { ready: true, status: 'Created', reason: '' };
  if (obj.kind === 'HTTPRoute' || obj.kind === 'GRPCRoute') return routeReadiness(status);
  if (obj.kind === 'Namespace')
    return { ready: status.phase === 'Active', status: String(status.phase ?? 'Unknown'), reason: '' };
  if (obj.kind === 'Deployment' || obj.kind === 'ReplicaSet') {
    const want = ((obj.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
    const avail = (status.availableReplicas as number | undefined) ?? 0;
    const ok = !stale && avail >= want && (status.updatedReplicas ?? 0) === want;
    const progressing = conditions.find((c) => c.type === 'Progressing');
    return {
      ready: ok,
      status: ok ? 'Available' : 'Progressing',
      reason: `${avail}/${want} available${!ok && progressing?.reason ? ` (${progressing.reason})` : ''}`,
    };
  }
  // The operator's own kinds report a phase or status word (ModelDeployment.status.phase, AIMService.status.status).
  const word = [status.phase, status.status, status.state].find((w): w is string => typeof w === 'string');
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready) {
    const ok = ready.status === 'True' && !stale && (word === undefined || isReadyWord(word));
    return { ready: ok, status: word ?? (ok ? 'Ready' : 'NotReady'), reason: ready.reason ?? '' };
  }
  if (word) return { ready: isReadyWord(word) && !stale, status: word, reason: '' };
  if (obj.kind === 'HorizontalPodAutoscaler') return hpaReadiness(obj, conditions, stale, now);
  if (conditions.length > 0) return fromConditions(conditions, stale);
  return { ready: false, status: 'Pending', reason: 'no status reported yet' };
}

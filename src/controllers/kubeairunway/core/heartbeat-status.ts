// A dead provider's InferenceProviderConfig, as kubectl shows it (docs/kubeairunway.md, "Provider readiness and
// heartbeats"). A provider killed without warning never writes `ready: false`: its registration keeps saying
// `ready: true` with a heartbeat that only ages. As the node controller does for a kubelet that stopped
// posting, the core (the leader) writes, as `kubeairunway-core`, `status.ready: false` and a condition
// `Heartbeat=False` (reason `HeartbeatStale`) once the heartbeat is stale, and gives both back once the
// provider beats again: the provider's own forced status write takes `ready` back, and the core's next
// apply, without the condition, removes it. The decision is pure (planHeartbeatStatus); a small controller
// on the reconcile engine writes it, looking again at the moment the heartbeat would go stale (staleness
// has no event).
import type { Controller } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import {
  CORE_FIELD_MANAGER,
  HEARTBEAT_STALE_AFTER_MS,
  type InferenceProviderConfig,
  InferenceProviderConfigs,
} from '../../../apis/kubeairunway/index.ts';
import { type Condition, ConditionManager, silent } from '../../../engine/conditions.ts';
import { type DomainReconciler, Pipeline, PlanResult } from '../../../engine/index.ts';
import { providerReadiness, staleAt } from '../selection/index.ts';

export const HEARTBEAT_CONDITION = 'Heartbeat';
export const HEARTBEAT_STALE_REASON = 'HeartbeatStale';
const CONTROLLER_NAME = 'kubeairunway-provider-heartbeat';

/** the part of an InferenceProviderConfig's status the core writes: nothing, or a dead provider's verdict */
export interface HeartbeatStatus {
  ready?: false;
  conditions?: Condition[];
}

export interface HeartbeatPlan {
  status: HeartbeatStatus;
  /** when to look again: the moment a fresh heartbeat goes stale */
  requeueAfterMs?: number;
}

/** what the core writes on `ipc` at `now`; `previous` is what it owns there (for a stable transition time) */
export function planHeartbeatStatus(
  ipc: InferenceProviderConfig,
  now: number,
  previous: HeartbeatStatus = {},
  staleAfterMs: number = HEARTBEAT_STALE_AFTER_MS,
  cm = new ConditionManager(previous.conditions ?? [], { now: () => now }),
): HeartbeatPlan {
  const readiness = providerReadiness(ipc, now, staleAfterMs);
  if (!readiness.stale) {
    const at = staleAt(ipc, staleAfterMs);
    cm.delete(HEARTBEAT_CONDITION);
    // a little past the limit, so the look at that moment sees it stale
    return { status: {}, ...(at !== undefined ? { requeueAfterMs: Math.max(0, at - now) + 50 } : {}) };
  }
  const name = ipc.metadata.name ?? '';
  const limit = Math.round(staleAfterMs / 1000);
  cm.markFalse(
    HEARTBEAT_CONDITION,
    HEARTBEAT_STALE_REASON,
    `no heartbeat since ${readiness.stale.lastHeartbeat} (stale after ${limit}s): the ${name} provider's controller is not running, so kubeairunway-core marked it not ready; start it (modelplane provider ${name}, or its Deployment) and check its logs`,
    silent(),
  );
  const condition = cm.get(HEARTBEAT_CONDITION);
  return { status: { ready: false, ...(condition ? { conditions: [condition] } : {}) } };
}

type HeartbeatEngineStatus = HeartbeatStatus & Record<string, unknown>;

function heartbeatReconciler(
  now: () => number,
  staleAfterMs: number,
): DomainReconciler<InferenceProviderConfig, number, HeartbeatPlan, unknown, HeartbeatEngineStatus> {
  return {
    fetchRemoteState: async () => now(),
    composeState: ({ object }, at) => planHeartbeatStatus(object, at, {}, staleAfterMs),
    planResources: (_ctx, plan) =>
      plan.requeueAfterMs !== undefined ? new PlanResult().requeueAfter(plan.requeueAfterMs) : new PlanResult(),
    setStatus(status, cm, _plan, { object }) {
      // again on the engine's ConditionManager (over what the core owns), so the transition time holds
      const next = planHeartbeatStatus(object, now(), status as HeartbeatStatus, staleAfterMs, cm).status;
      for (const key of Object.keys(status)) delete status[key];
      Object.assign(status, next);
    },
  };
}

export interface HeartbeatStatusOptions {
  now?: () => number;
  staleAfterMs?: number;
}

/** the controller that marks dead providers' InferenceProviderConfigs not ready (leader only) */
export function registerHeartbeatStatusController(mgr: Manager, opts: HeartbeatStatusOptions = {}): Controller {
  const pipeline = new Pipeline({
    name: CONTROLLER_NAME,
    reconciler: heartbeatReconciler(opts.now ?? Date.now, opts.staleAfterMs ?? HEARTBEAT_STALE_AFTER_MS),
    statusField: null,
  });
  return mgr
    .controller(CONTROLLER_NAME)
    .for(InferenceProviderConfigs)
    .withOptions({ fieldManager: CORE_FIELD_MANAGER, concurrency: 1 })
    .complete(async (req, ctx) => {
      const ipc = await ctx.cache.get(InferenceProviderConfigs, req.name);
      if (!ipc) return {};
      return pipeline.reconcile(ipc, ctx);
    });
}

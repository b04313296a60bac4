// The VariantAutoscaling status, from data only (docs/autoscaling.md, "Status and conditions"): the target,
// the engine's latest decision for the variant and its reason in words.
import {
  ACCELERATOR_LABEL,
  CONDITION_METRICS_AVAILABLE,
  CONDITION_OPTIMIZATION_READY,
  CONDITION_TARGET_RESOLVED,
  REASONS,
  type VariantAutoscalingStatus,
} from '../../../apis/llmd/index.ts';
import type { ConditionManager, EngineStatus, FetchResult } from '../../../engine/index.ts';
import type { VariantDecision } from '../decisions.ts';
import type { ScalableWorkload, VariantAutoscaling } from '../kinds.ts';

export interface VariantObservation {
  target: FetchResult<ScalableWorkload> | { unsupported: string };
  decision?: VariantDecision;
  /** where metrics come from, for messages */
  metricsSource: string;
}

export type VAStatus = EngineStatus & Omit<VariantAutoscalingStatus, 'conditions'>;

export function setVariantStatus(
  va: VariantAutoscaling,
  obs: VariantObservation,
  status: VAStatus,
  cm: ConditionManager,
): void {
  const target = 'unsupported' in obs.target ? undefined : obs.target;
  markTargetResolved(va, obs, cm);
  const d = obs.decision;
  if (!d) {
    cm.markUnknown(
      CONDITION_METRICS_AVAILABLE,
      REASONS.metricsMissing,
      `waiting for the first optimization cycle to read metrics from ${obs.metricsSource}`,
    );
    cm.markUnknown(CONDITION_OPTIMIZATION_READY, REASONS.skippedProcessing, 'waiting for the first optimization cycle');
    return;
  }
  if (d.metricsProblem) cm.markFalse(CONDITION_METRICS_AVAILABLE, d.metricsProblem.reason, d.metricsProblem.message);
  else
    cm.markTrue(
      CONDITION_METRICS_AVAILABLE,
      REASONS.metricsFound,
      `${d.replicasWithMetrics} of ${d.current} replicas report vLLM metrics (${obs.metricsSource})`,
    );
  const accelerator = markOptimizationReady(va, d, cm);
  if (accelerator === undefined) return;
  const previous = status.desiredOptimizedAlloc;
  const changed = !previous || previous.numReplicas !== d.target || previous.accelerator !== accelerator;
  status.desiredOptimizedAlloc = {
    lastRunTime: changed ? d.time : (previous.lastRunTime ?? d.time),
    accelerator,
    numReplicas: d.target,
  };
  if (target?.ok()) status.actuation = { applied: (target.value.spec?.replicas ?? 1) === d.target };
}

/** TargetResolved: the Deployment named by spec.scaleTargetRef, found, missing or unreadable */
function markTargetResolved(va: VariantAutoscaling, obs: VariantObservation, cm: ConditionManager): void {
  const ns = va.metadata.namespace;
  const ref = va.spec.scaleTargetRef;
  if ('unsupported' in obs.target) {
    cm.markFalse(CONDITION_TARGET_RESOLVED, REASONS.targetNotFound, obs.target.unsupported);
    return;
  }
  const target = obs.target;
  if (target.ok()) {
    cm.markTrue(
      CONDITION_TARGET_RESOLVED,
      REASONS.targetFound,
      `Deployment ${ns}/${ref.name} found (spec.scaleTargetRef)`,
    );
    return;
  }
  const why = target.isNotFound()
    ? 'not found'
    : `could not be read: ${target.error instanceof Error ? target.error.message : String(target.error)}`;
  cm.markFalse(
    CONDITION_TARGET_RESOLVED,
    REASONS.targetNotFound,
    `Deployment ${ns}/${ref.name} named by spec.scaleTargetRef ${why}; create it or correct spec.scaleTargetRef.name`,
  );
}

/**
 * OptimizationReady from the engine's decision; returns the accelerator the decision is for, or undefined
 * when there is no decision to publish (no accelerator label, or the variant was skipped)
 */
function markOptimizationReady(va: VariantAutoscaling, d: VariantDecision, cm: ConditionManager): string | undefined {
  const accelerator = va.metadata.labels?.[ACCELERATOR_LABEL];
  if (!accelerator || accelerator.length < 2) {
    cm.markFalse(
      CONDITION_OPTIMIZATION_READY,
      REASONS.invalidConfiguration,
      `label ${ACCELERATOR_LABEL} is missing on VariantAutoscaling ${va.metadata.namespace}/${va.metadata.name}; add it (e.g. "H100") so the decision can name its accelerator`,
    );
    return undefined;
  }
  if (d.outcome === 'skipped') {
    cm.markFalse(CONDITION_OPTIMIZATION_READY, REASONS.invalidConfiguration, d.reason);
    return undefined;
  }
  if (d.outcome === 'safety-net')
    cm.markFalse(
      CONDITION_OPTIMIZATION_READY,
      d.metricsProblem ? REASONS.metricsUnavailable : REASONS.optimizationFailed,
      d.reason,
    );
  else
    cm.markTrue(
      CONDITION_OPTIMIZATION_READY,
      REASONS.optimizationSucceeded,
      `desired ${d.target} replicas (${d.action}): ${d.reason}`,
    );
  return accelerator;
}

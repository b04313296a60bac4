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
import {
  asInfo,
  asWarning,
  type ConditionManager,
  type EngineStatus,
  type FetchResult,
  silent,
} from '../../../engine/index.ts';
import type { VariantDecision } from '../decisions.ts';
import type { ScalableWorkload, VariantAutoscaling } from '../kinds.ts';

export interface VariantObservation {
  target: FetchResult<ScalableWorkload> | { unsupported: string };
  decision?: VariantDecision;
  /** where metrics come from, for messages */
  metricsSource: string;
  /** another VA (`namespace/name`) claimed the same target first */
  duplicateOf?: string;
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
  if (
    obs.duplicateOf ||
    (d?.withheld && d.withheld.reason !== 'MetricsMissing' && d.withheld.reason !== 'MetricsStale')
  ) {
    // no target of its own (or not ours to decide): nothing to read, nothing decided
    const why = obs.duplicateOf
      ? `VariantAutoscaling ${obs.duplicateOf} already targets this Deployment`
      : (d?.withheld?.message ?? 'no target');
    cm.markUnknown(CONDITION_METRICS_AVAILABLE, REASONS.skippedProcessing, `not read: ${why}`, silent());
    cm.markFalse(CONDITION_OPTIMIZATION_READY, REASONS.skippedProcessing, `no decision: ${why}`, silent());
    return;
  }
  if (!d) {
    cm.markUnknown(
      CONDITION_METRICS_AVAILABLE,
      REASONS.metricsMissing,
      `waiting for the first optimization cycle to read metrics from ${obs.metricsSource}`,
      silent(),
    );
    cm.markUnknown(
      CONDITION_OPTIMIZATION_READY,
      REASONS.skippedProcessing,
      'waiting for the first optimization cycle',
      silent(),
    );
    return;
  }
  const evidence = d.withheld ?? d.sampleProblem;
  if (d.awaitingFirstSamples && d.withheld && !d.metricsProblem) {
    // replicas that have not been scraped yet: an expected wait (info), a Warning only once it lasts
    const message = `waiting for the first samples (a Warning follows if none arrives within a minute): ${d.withheld.message}`;
    cm.markUnknown(CONDITION_METRICS_AVAILABLE, d.withheld.reason, message, asInfo());
    cm.markUnknown(CONDITION_OPTIMIZATION_READY, REASONS.metricsUnavailable, `no decision yet: ${message}`, silent());
    return;
  }
  if (d.metricsProblem)
    cm.markFalse(CONDITION_METRICS_AVAILABLE, d.metricsProblem.reason, d.metricsProblem.message, asWarning());
  else if (evidence) cm.markFalse(CONDITION_METRICS_AVAILABLE, evidence.reason, evidence.message, asWarning());
  else
    cm.markTrue(
      CONDITION_METRICS_AVAILABLE,
      REASONS.metricsFound,
      `${d.replicasWithMetrics} of ${d.current} replicas report vLLM metrics (${obs.metricsSource})`,
    );
  if (d.withheld) {
    // the last published decision stays as it is: no new one without evidence
    cm.markFalse(
      CONDITION_OPTIMIZATION_READY,
      REASONS.metricsUnavailable,
      `no decision: ${d.withheld.message}`,
      silent(),
    );
    return;
  }
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
    cm.markFalse(CONDITION_TARGET_RESOLVED, REASONS.targetNotFound, obs.target.unsupported, asWarning());
    return;
  }
  const target = obs.target;
  if (obs.duplicateOf) {
    cm.markFalse(
      CONDITION_TARGET_RESOLVED,
      REASONS.duplicateTarget,
      `${ref.kind} ${ns}/${ref.name} is already the target of VariantAutoscaling ${obs.duplicateOf} (created earlier); this one gets no decision. Delete one of them or point spec.scaleTargetRef at another Deployment`,
      asWarning(),
    );
    return;
  }
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
    asWarning(),
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
  else if (d.sampleProblem)
    cm.markFalse(
      CONDITION_OPTIMIZATION_READY,
      REASONS.metricsUnavailable,
      `keeping ${d.target} replicas (${d.action}) while some samples are unusable: ${d.reason}`,
    );
  else
    cm.markTrue(
      CONDITION_OPTIMIZATION_READY,
      REASONS.optimizationSucceeded,
      `desired ${d.target} replicas (${d.action}): ${d.reason}`,
    );
  return accelerator;
}

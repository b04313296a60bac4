// How many predictor replicas an AIMService asks for, and what its status reports (docs/aim.md,
// "Replicas and autoscaling"). Fixed: `spec.replicas` (default 1), no autoscaler. Autoscaled, when any of
// `autoScaling`, `minReplicas`, `maxReplicas` is set: KServe's KEDA autoscaler between minReplicas (default 1)
// and maxReplicas (default minReplicas) on the `autoScaling` metrics, the OpenTelemetry sidecar injected and
// the vLLM port scraped. The status shows the KEDA HPA's view when it exists, else the spec's. Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMServiceSpec, AIMServiceStatus } from '../../../apis/aim/index.ts';
import { PREDICTOR_SUFFIX } from './names.ts';

export const AUTOSCALER_CLASS_ANNOTATION = 'serving.kserve.io/autoscalerClass';
export const OTEL_INJECT_ANNOTATION = 'sidecar.opentelemetry.io/inject';
export const PROMETHEUS_PORT_ANNOTATION = 'prometheus.kserve.io/port';

export interface ReplicaPlan {
  autoscaled: boolean;
  min: number;
  max: number;
  /** the InferenceService's annotations for this mode */
  annotations: Record<string, string>;
  /** spec.autoScaling, copied to the predictor */
  autoScaling?: AIMServiceSpec['autoScaling'];
}

type ReplicaSpec = Pick<AIMServiceSpec, 'replicas' | 'minReplicas' | 'maxReplicas' | 'autoScaling'>;

export function replicaPlan(spec: ReplicaSpec, isvcName: string, predictorPort: number): ReplicaPlan {
  const autoscaled = spec.autoScaling !== undefined || spec.minReplicas !== undefined || spec.maxReplicas !== undefined;
  if (!autoscaled) {
    const n = spec.replicas ?? 1;
    return { autoscaled, min: n, max: n, annotations: { [AUTOSCALER_CLASS_ANNOTATION]: 'none' } };
  }
  const min = spec.minReplicas ?? 1;
  // an admission rule keeps max ≥ min; an object stored before it still gets a valid range
  const max = Math.max(min, spec.maxReplicas ?? min);
  return {
    autoscaled,
    min,
    max,
    annotations: {
      [AUTOSCALER_CLASS_ANNOTATION]: 'keda',
      [OTEL_INJECT_ANNOTATION]: `${isvcName}${PREDICTOR_SUFFIX}`,
      [PROMETHEUS_PORT_ANNOTATION]: String(predictorPort),
    },
    ...(spec.autoScaling ? { autoScaling: structuredClone(spec.autoScaling) } : {}),
  };
}

/** the KEDA HPA KServe's ScaledObject gets for the predictor */
export function kedaHpaName(isvcName: string): string {
  return `keda-hpa-${isvcName}${PREDICTOR_SUFFIX}`;
}

interface HpaStatus {
  currentReplicas?: number;
  desiredReplicas?: number;
}

/** status.runtime: the HPA's current/desired when autoscaled and known, else the spec's replicas */
export function runtimeStatus(
  plan: ReplicaPlan,
  hpa: KubeObject | undefined,
): NonNullable<AIMServiceStatus['runtime']> {
  const seen = plan.autoscaled ? ((hpa as { status?: HpaStatus } | undefined)?.status ?? {}) : {};
  const current = seen.currentReplicas ?? plan.min;
  const desired = seen.desiredReplicas ?? plan.min;
  return {
    currentReplicas: current,
    desiredReplicas: desired,
    minReplicas: plan.min,
    maxReplicas: plan.max,
    replicas: plan.min === plan.max ? String(plan.min) : `${current}/${desired} (${plan.min}-${plan.max})`,
  };
}

// KEDA's ScaledObject (keda.sh/v1alpha1): what turns the autoscaler's wva_desired_replicas into an HPA.
// Typed once for the controllers and the simulators; only the fields modelplane reads or writes are typed.

import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

export interface ScaledObjectTrigger {
  type: string;
  name?: string;
  metadata: Record<string, string>;
  metricType?: 'AverageValue' | 'Value' | 'Utilization';
}

export interface ScaledObject extends KubeObject {
  spec: {
    scaleTargetRef: { apiVersion?: string; kind?: string; name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    pollingInterval?: number;
    cooldownPeriod?: number;
    triggers: ScaledObjectTrigger[];
    [field: string]: unknown;
  };
  status?: {
    scaleTargetKind?: string;
    originalReplicaCount?: number;
    externalMetricNames?: string[];
    hpaName?: string;
    conditions?: ObservedCondition[];
    [field: string]: unknown;
  };
}

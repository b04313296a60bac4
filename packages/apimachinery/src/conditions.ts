// metav1.Condition: one aspect of an object's observed state. lastTransitionTime changes only when
// `status` changes; `reason` is a CamelCase identifier, `message` a sentence for people.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * a condition as read from any object, ours or another controller's (Pods, Deployments, external kinds): only
 * type and status are certain, and status may be any string a controller wrote
 */
export interface ObservedCondition {
  type: string;
  status: ConditionStatus | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

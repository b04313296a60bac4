// metav1.Condition: one aspect of an object's observed state. lastTransitionTime changes only when
// `status` changes; `reason` is a CamelCase identifier, `message` a sentence for people.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

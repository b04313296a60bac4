// Kind references and object shapes the autoscaler reads. The VariantAutoscaling shape comes from the zod
// schema in src/apis/llmd, so the CRD and the controller cannot drift apart.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  LLMD_API_VERSION,
  type VariantAutoscalingSpecInput,
  type VariantAutoscalingStatus,
} from '../../apis/llmd/index.ts';

export interface VariantAutoscaling extends KubeObject {
  spec: VariantAutoscalingSpecInput;
  status?: VariantAutoscalingStatus;
}

export interface ScalableWorkload extends KubeObject {
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

export interface PodObject extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
}

export const VariantAutoscalings = kindRef<VariantAutoscaling>(LLMD_API_VERSION, 'VariantAutoscaling');
export const AutoscaledDeployments = kindRef<ScalableWorkload>('apps/v1', 'Deployment');
export const AutoscaledReplicaSets = kindRef<ScalableWorkload>('apps/v1', 'ReplicaSet');
export const AutoscaledPods = kindRef<PodObject>('v1', 'Pod');

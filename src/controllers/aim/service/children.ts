// The external kinds an AIMService becomes: KServe's InferenceService and Gateway API's HTTPRoute. Only
// the fields the controller reads are typed; the objects are the API server's JSON.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { HTTPRoute, KubeCondition } from '../../../engine/index.ts';

export interface InferenceService extends KubeObject {
  spec?: { predictor?: Record<string, unknown> };
  status?: {
    observedGeneration?: number;
    conditions?: KubeCondition[];
    url?: string;
    modelStatus?: { transitionStatus?: string; lastFailureInfo?: { reason?: string; message?: string } };
  };
}

export type { HTTPRoute };

export const InferenceServices = kindRef<InferenceService>('serving.kserve.io/v1beta1', 'InferenceService');
export const HTTPRoutes = kindRef<HTTPRoute>('gateway.networking.k8s.io/v1', 'HTTPRoute');

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

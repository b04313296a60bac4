// The external kinds an AIMService becomes: KServe's InferenceService and Gateway API's HTTPRoute. Only
// the fields the controller reads are typed; the objects are the API server's JSON.

import type { InferenceService } from '@modelplane/apimachinery/external';
import { kindRef } from '@modelplane/runtime/meta';
import type { HTTPRoute } from '../../../engine/index.ts';

export type { HTTPRoute, InferenceService };

export const InferenceServices = kindRef<InferenceService>('serving.kserve.io/v1beta1', 'InferenceService');
export const HTTPRoutes = kindRef<HTTPRoute>('gateway.networking.k8s.io/v1', 'HTTPRoute');

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

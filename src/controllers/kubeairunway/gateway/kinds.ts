// The Gateway API and Inference Extension kinds the gateway controller reads and writes. Only the fields it
// uses are typed; the objects are the API server's JSON. HTTPRoute is the AIM controllers' definition.

import type { Gateway, GatewayListener, InferencePool } from '@modelplane/apimachinery/external';
import { kindRef } from '@modelplane/runtime/meta';
import { GATEWAY_API_GROUP, type HTTPRoute, HTTPRoutes } from '../../aim/service/children.ts';

export type { Gateway, GatewayListener, InferencePool };

export { GATEWAY_API_GROUP, type HTTPRoute, HTTPRoutes };

export const GATEWAY_API_VERSION = `${GATEWAY_API_GROUP}/v1`;
/** the Gateway API Inference Extension's GA group */
export const INFERENCE_POOL_GROUP = 'inference.networking.k8s.io';
export const INFERENCE_POOL_API_VERSION = `${INFERENCE_POOL_GROUP}/v1`;

export const Gateways = kindRef<Gateway>(GATEWAY_API_VERSION, 'Gateway');
export const InferencePools = kindRef<InferencePool>(INFERENCE_POOL_API_VERSION, 'InferencePool');

// The gateway controller (docs/kubeairunway.md, "Gateway"): routes Running ModelDeployments through the
// shared Gateway with an HTTPRoute and reports status.gateway and GatewayReady. It runs in the
// `kubeairunway-core` controller set, as the public project's core controller does.
import { READ, rule, WRITE } from '../../rbac.ts';
import { GATEWAY_API_GROUP, INFERENCE_POOL_GROUP } from './kinds.ts';

export { type GatewayControllerOptions, registerGatewayController } from './controller.ts';
export {
  Gateways,
  HTTPRoutes,
  INFERENCE_POOL_API_VERSION,
  INFERENCE_POOL_GROUP,
  type InferencePool,
  InferencePools,
} from './kinds.ts';
export {
  type GatewayInputs,
  type GatewayPlan,
  type GatewayStatus,
  planGateway,
  providerPool,
  routeVerdict,
  type Verdict,
} from './plan.ts';
export { buildRoute, gatewayEndpoint, MODEL_NAME_HEADER, type RouteBackend, routedModelName } from './route.ts';
export { type GatewayChoice, type GatewayRef, selectGateway } from './select-gateway.ts';

/** what the gateway controller reads and writes */
export const GATEWAY_RULES = [
  rule(GATEWAY_API_GROUP, ['gateways'], READ),
  rule(GATEWAY_API_GROUP, ['httproutes'], [...READ, ...WRITE]),
  rule(INFERENCE_POOL_GROUP, ['inferencepools'], READ),
];

// Which Gateway a ModelDeployment is routed through (docs/kubeairunway.md, "Gateway"), pure:
//  1. spec.gateway.gatewayRef, when set (it must exist);
//  2. the one the operator was configured with;
//  3. the first (by namespace/name) labelled kubeairunway.ai/inference-gateway=true;
//  4. the only Gateway in the cluster, unless the deployment was routed through another Gateway before:
//     a route is never moved to a Gateway nobody chose for inference (when the labelled Gateway goes, the
//     cluster's last Gateway may well be KServe's), it is withdrawn with a condition instead;
//  otherwise none, with a reason and a message that says what to do.
import { INFERENCE_GATEWAY_LABEL } from '../../../apis/kubeairunway/index.ts';
import type { Gateway } from './kinds.ts';

export interface GatewayRef {
  namespace: string;
  name: string;
}

export type GatewayChoice =
  | { gateway: Gateway }
  | { gateway?: undefined; reason: 'NoGateway' | 'GatewayNotFound'; message: string };

export interface GatewaySelection {
  /** the deployment's spec.gateway.gatewayRef, namespace defaulted */
  ref?: GatewayRef;
  /** the operator's --gateway-namespace/--gateway-name */
  configured?: GatewayRef;
  /** the Gateway the deployment is routed through now, or was judged on without a route (status.gateway) */
  previous?: GatewayRef & { routed?: boolean };
}

const keyOf = (g: Gateway) => `${g.metadata.namespace ?? ''}/${g.metadata.name ?? ''}`;
const is = (g: Gateway, ref: GatewayRef) => g.metadata.namespace === ref.namespace && g.metadata.name === ref.name;

export function selectGateway(gateways: readonly Gateway[], sel: GatewaySelection = {}): GatewayChoice {
  const live = gateways.filter((g) => !g.metadata.deletionTimestamp);
  if (sel.ref) {
    const found = live.find((g) => is(g, sel.ref!));
    return found
      ? { gateway: found }
      : {
          reason: 'GatewayNotFound',
          message: `spec.gateway.gatewayRef names Gateway ${sel.ref.namespace}/${sel.ref.name}, which does not exist: create it, or name another`,
        };
  }
  if (sel.configured) {
    const found = live.find((g) => is(g, sel.configured!));
    return found
      ? { gateway: found }
      : {
          reason: 'NoGateway',
          message: `the configured Gateway ${sel.configured.namespace}/${sel.configured.name} (--gateway-namespace/--gateway-name) does not exist: create it, or start the operator with the Gateway to use`,
        };
  }
  const labelled = live
    .filter((g) => g.metadata.labels?.[INFERENCE_GATEWAY_LABEL] === 'true')
    .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  if (labelled.length > 0) return { gateway: labelled[0]! };
  // the Gateway it was routed through, still there but no longer labelled, or gone
  const lost = sel.previous
    ? `Gateway ${sel.previous.namespace}/${sel.previous.name}, ${sel.previous.routed === false ? 'which it was judged on' : 'which routed it'}, ${live.some((g) => is(g, sel.previous!)) ? `is no longer labelled ${INFERENCE_GATEWAY_LABEL}=true` : 'is gone'}`
    : undefined;
  if (live.length === 1) {
    const only = live[0]!;
    if (!sel.previous || is(only, sel.previous)) return { gateway: only };
    return {
      reason: 'GatewayNotFound',
      message: `${lost}, and the route is not moved to ${keyOf(only)}, which is not labelled ${INFERENCE_GATEWAY_LABEL}=true: label the Gateway to route through, or name it in spec.gateway.gatewayRef`,
    };
  }
  if (live.length === 0)
    return {
      // the Gateway it was on is gone: GatewayNotFound keeps its claim for when one is labelled again
      reason: lost ? 'GatewayNotFound' : 'NoGateway',
      message: lost
        ? `${lost} and the cluster has no other Gateway: create one labelled ${INFERENCE_GATEWAY_LABEL}=true`
        : 'the cluster has no Gateway: create one (gateway.networking.k8s.io/v1) for the deployment to be routed through',
    };
  return {
    reason: lost ? 'GatewayNotFound' : 'NoGateway',
    message: `${lost ? `${lost}, and ` : ''}the cluster has ${live.length} Gateways (${live.map(keyOf).sort().join(', ')}) and none is labelled ${INFERENCE_GATEWAY_LABEL}=true: label the one to route through, or name it in spec.gateway.gatewayRef`,
  };
}

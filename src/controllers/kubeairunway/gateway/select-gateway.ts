// Which Gateway a ModelDeployment is routed through (docs/kubeairunway.md, "Gateway"), pure: the one the
// operator was configured with; otherwise the only Gateway in the cluster; otherwise the first (by
// namespace/name) labelled kubeairunway.ai/inference-gateway=true; otherwise none, with a message that says
// what to do.
import { INFERENCE_GATEWAY_LABEL } from '../../../apis/kubeairunway/index.ts';
import type { Gateway } from './kinds.ts';

export interface GatewayRef {
  namespace: string;
  name: string;
}

export type GatewayChoice = { gateway: Gateway } | { gateway?: undefined; message: string };

const keyOf = (g: Gateway) => `${g.metadata.namespace ?? ''}/${g.metadata.name ?? ''}`;

export function selectGateway(gateways: readonly Gateway[], configured?: GatewayRef): GatewayChoice {
  if (configured) {
    const found = gateways.find(
      (g) => g.metadata.namespace === configured.namespace && g.metadata.name === configured.name,
    );
    return found
      ? { gateway: found }
      : {
          message: `the configured Gateway ${configured.namespace}/${configured.name} (--gateway-namespace/--gateway-name) does not exist: create it, or start the operator with the Gateway to use`,
        };
  }
  const live = gateways.filter((g) => !g.metadata.deletionTimestamp);
  if (live.length === 1) return { gateway: live[0]! };
  const labelled = live
    .filter((g) => g.metadata.labels?.[INFERENCE_GATEWAY_LABEL] === 'true')
    .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  if (labelled.length > 0) return { gateway: labelled[0]! };
  return {
    message:
      live.length === 0
        ? 'the cluster has no Gateway: create one (gateway.networking.k8s.io/v1) for the deployment to be routed through'
        : `the cluster has ${live.length} Gateways (${live.map(keyOf).sort().join(', ')}) and none is labelled ${INFERENCE_GATEWAY_LABEL}=true: label the one to route through`,
  };
}

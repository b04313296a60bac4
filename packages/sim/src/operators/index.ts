// Simulators of the external operators modelplane's controllers drive: KServe, the Gateway API, KAITO,
// NVIDIA Dynamo, KubeRay and KEDA. Each is an ordinary controller on packages/runtime/src/ talking to the API server
// through the normal client, so on a real cluster the real operators take their place. They create
// Deployments and Services like the real operators do; the workload simulators (packages/sim/src/workloads/)
// turn those into running pods, whose readiness and failures flow back into the custom resources' status.
//
// The external CRDs (externalCrds()) must be installed before the manager starts.

import type { Manager } from '@modelplane/runtime/manager';
import type { PrometheusClientOptions } from '@modelplane/runtime/prometheus';
import type { GatewayAddressSource } from '../gateway/data-plane.ts';
import { DEFAULT_DELAYS, type OperatorDelays, StageClock } from './delays.ts';
import { registerDynamoSimulator } from './dynamo.ts';
import { DEFAULT_GATEWAY_CONTROLLER_NAME, registerGatewaySimulators } from './gateway.ts';
import { registerHTTPRouteSimulator } from './httproute.ts';
import { registerKaitoSimulator } from './kaito.ts';
import { registerKedaSimulator } from './keda.ts';
import { registerKServeSimulator } from './kserve.ts';
import { registerRayServiceSimulator } from './kuberay.ts';
import { registerRayClusterSimulator } from './kuberay-cluster.ts';
import type { SimulatorOptions } from './options.ts';

export { externalCrds } from '../crds/index.ts';
export { DEFAULT_DELAYS, type OperatorDelays, ZERO_DELAYS } from './delays.ts';
export { DEFAULT_GATEWAY_CONTROLLER_NAME } from './gateway.ts';
export {
  type Condition,
  type Container,
  type ContainerStatus,
  type Deployment,
  DynamoGraphDeployments,
  GatewayClasses,
  Gateways,
  HTTPRoutes,
  InferenceServices,
  type Json,
  type Pod,
  type PodSpec,
  type PodTemplate,
  RayClusters,
  RayServices,
  ReferenceGrants,
  ScaledObjects,
  type Service,
  SimDeployments,
  SimHPAs,
  SimJobs,
  SimNamespaces,
  SimNodes,
  SimPods,
  SimServices,
  type WithStatus,
  Workspaces,
} from './kinds.ts';

export type OperatorName = 'kserve' | 'gateway' | 'kaito' | 'dynamo' | 'kuberay' | 'keda';
export const OPERATOR_NAMES: readonly OperatorName[] = ['kserve', 'gateway', 'kaito', 'dynamo', 'kuberay', 'keda'];

export interface OperatorSimulatorOptions {
  /** per-step delays; unset ones keep their defaults (DEFAULT_DELAYS) */
  delays?: Partial<OperatorDelays>;
  /** which simulators to run (default: all), e.g. to leave the Gateway API to a real implementation */
  only?: readonly OperatorName[];
  /** KServe's ingress domain (default example.com) */
  ingressDomain?: string;
  /** the GatewayClass controllerName the Gateway API simulator answers to */
  gatewayControllerName?: string;
  /** serves the simulated Gateways' traffic and says where (default: made-up addresses, no traffic) */
  gatewayAddresses?: GatewayAddressSource;
  /** evaluate KEDA's prometheus triggers against this Prometheus and scale as KEDA would (modelplane dev) */
  kedaPrometheus?: PrometheusClientOptions;
}

/** registers the simulated operators' controllers on `mgr` (call before mgr.start()) */
export function registerOperatorSimulators(mgr: Manager, opts: OperatorSimulatorOptions = {}): void {
  const sim: SimulatorOptions = {
    delays: { ...DEFAULT_DELAYS, ...(opts.delays ?? {}) },
    clock: new StageClock(),
    ingressDomain: opts.ingressDomain ?? 'example.com',
    gatewayControllerName: opts.gatewayControllerName ?? DEFAULT_GATEWAY_CONTROLLER_NAME,
    ...(opts.gatewayAddresses ? { gatewayAddresses: opts.gatewayAddresses } : {}),
    ...(opts.kedaPrometheus ? { kedaPrometheus: opts.kedaPrometheus } : {}),
  };
  const enabled = new Set(opts.only ?? OPERATOR_NAMES);
  if (enabled.has('kserve')) registerKServeSimulator(mgr, sim);
  if (enabled.has('gateway')) {
    registerGatewaySimulators(mgr, sim);
    registerHTTPRouteSimulator(mgr, sim);
  }
  if (enabled.has('kaito')) registerKaitoSimulator(mgr, sim);
  if (enabled.has('dynamo')) registerDynamoSimulator(mgr, sim);
  if (enabled.has('kuberay')) {
    registerRayClusterSimulator(mgr, sim);
    registerRayServiceSimulator(mgr, sim);
  }
  if (enabled.has('keda')) registerKedaSimulator(mgr, sim);
}

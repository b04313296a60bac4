// Settings every simulated operator receives from registerOperatorSimulators.

import type { PrometheusClientOptions } from '@modelplane/runtime/prometheus';
import type { GatewayAddressSource } from '../gateway/data-plane.ts';
import type { OperatorDelays, StageClock } from './delays.ts';

export interface SimulatorOptions {
  delays: OperatorDelays;
  clock: StageClock;
  /** KServe's ingress domain: an InferenceService's URL is http://<name>-<namespace>.<domain> */
  ingressDomain: string;
  /** the controllerName GatewayClasses use to select the simulated Gateway API implementation */
  gatewayControllerName: string;
  /** the Gateways' data plane (modelplane dev): its real listening addresses replace the made-up ones */
  gatewayAddresses?: GatewayAddressSource;
  /** the Prometheus KEDA's prometheus triggers are evaluated against (modelplane dev); unset: never evaluated */
  kedaPrometheus?: PrometheusClientOptions;
}

/** workers per simulated operator: a thousand custom resources at once should not queue behind one worker */
export const SIM_CONCURRENCY = 4;

// Fault injection on a test cluster, one interface for both backends: the embedded server injects faults
// itself; on the real control plane a proxy in front of kube-apiserver does (proxy.ts). Reliability suites
// written against this run unchanged on either (docs/real-kubernetes.md).
import type { FaultControls } from '../../api.ts';
import type { FaultedRequest, FaultSpec } from '../../faults.ts';

export type { FaultedRequest, FaultSpec };

/**
 * The embedded server's fault controls (api.ts), with expiry awaited: on the real backend it reads the
 * current resourceVersion before resuming watches get their 410.
 */
export interface TestFaults extends Omit<FaultControls, 'expireWatches'> {
  /** ends open watches; resuming one from any resourceVersion before now gets 410 Expired, so clients re-list */
  expireWatches(): Promise<void>;
}

export interface FaultInjection {
  readonly backend: 'embedded' | 'real';
  readonly faults: TestFaults;
  /**
   * The kubeconfig `kubeconfigYaml` with its server replaced by the one the faults act on: unchanged on
   * the embedded backend, the fault proxy on the real one (same CA, same credentials).
   */
  route(kubeconfigYaml: string): string;
  /** stops the API server and starts it again on the same address, with the same credentials and objects */
  restartApiServer(): Promise<void>;
  /** removes every fault (and stops the proxy) */
  stop(): Promise<void>;
}

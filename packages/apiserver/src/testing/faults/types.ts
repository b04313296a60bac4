// Fault injection on a test cluster, one interface for both backends: the embedded server injects faults
// itself; on the real control plane a proxy in front of kube-apiserver does (proxy.ts). Reliability suites
// written against this run unchanged on either (docs/real-kubernetes.md).
import type { FaultedRequest, FaultSpec } from '../../faults.ts';

export type { FaultedRequest, FaultSpec };

export interface TestFaults {
  /** fails, delays or conflicts matching requests until removed; returns the fault's id */
  add(spec: FaultSpec): string;
  remove(id: string): boolean;
  /** removes every fault and ends a stall */
  clear(): void;
  list(): Array<FaultSpec & { id: string }>;
  /** drops every open watch connection without a clean end (clients must resume or re-list) */
  closeWatches(): void;
  /** holds back watch events (connections stay open) until called again with false */
  stallWatches(on: boolean): void;
  /** ends open watches; resuming one from any resourceVersion before now gets 410 Expired, so clients re-list */
  expireWatches(): Promise<void>;
  /** every request a fault answered (including expired watches, with 410), oldest first */
  faulted(): FaultedRequest[];
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

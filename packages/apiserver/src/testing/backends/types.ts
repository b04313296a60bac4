// What a test-cluster backend provides. A backend starts an API server that kubectl and the operator's
// client can talk to, with the requested CRDs installed and Established, and stops it again.

import type { AuditEntry } from '../../audit.ts';
import type { ApiServer, ApiServerOptions } from '../../index.ts';
import type { RealControlPlane } from '../../real/index.ts';
import type { KubeObject } from '../../types.ts';

export type TestBackendName = 'embedded' | 'real';

export interface BackendOptions extends ApiServerOptions {
  /** CustomResourceDefinitions installed (and Established) before the backend reports it is up */
  crds?: KubeObject[];
}

export interface BackendCluster {
  readonly url: string;
  readonly caPem: string;
  readonly adminToken: string;
  kubeconfigYaml(): string;
  /** the embedded server's handle (tokens, faults, restart); on the real backend reading it throws, naming what to use instead */
  readonly server: ApiServer;
  /** the real control plane (processes, restartApiServer, client-certificate users); undefined on the embedded backend */
  readonly real: RealControlPlane | undefined;
  /** every completed request so far, on either backend (kube-apiserver's audit log on the real one) */
  auditEntries(): AuditEntry[];
  /** a kubeconfig authenticating as ServiceAccount `namespace/name` (on the real backend it must exist: a TokenRequest is made) */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  stop(): Promise<void>;
}

export type StartBackend = (opts: BackendOptions) => Promise<BackendCluster>;

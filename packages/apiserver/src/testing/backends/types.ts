// What a test-cluster backend provides. A backend starts an API server that kubectl and the operator's
// client can talk to, with the requested CRDs installed and Established, and stops it again.
import type { ApiServer, ApiServerOptions } from '../../index.ts';
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
  /** the server handle (tokens, audit entries, faults, restart) */
  readonly server: ApiServer;
  stop(): Promise<void>;
}

export type StartBackend = (opts: BackendOptions) => Promise<BackendCluster>;

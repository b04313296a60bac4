// `@modelplane/apiserver`: the embedded Kubernetes-compatible API server. `startApiServer()` brings up HTTPS
// on 127.0.0.1 with a generated (or given) CA, an admin token and the built-in kinds, and returns a handle
// for tests and `modelplane dev`. Everything the server needs is an option; the handle offers methods, not
// the server's parts.
import type { ApiServer, ApiServerOptions } from './api.ts';
import { startServer } from './handle.ts';

export function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  return startServer(opts);
}

export { ServiceEndpoints } from './admission/service-endpoints.ts';
export type { ApiServer, ApiServerOptions, FaultControls } from './api.ts';
export type { AuditEntry } from './audit.ts';
export type { ServiceAccountKubeconfigOptions } from './auth/kubeconfig.ts';
export type { LogOptions, LogProvider } from './core.ts';
export type { FaultedRequest, FaultSpec } from './faults.ts';
export type { KubeObject, UserInfo } from './types.ts';

// The public shape of the embedded API server: what startApiServer takes and the handle it returns.
import type { ServiceEndpoints } from './admission/service-endpoints.ts';
import type { AuditEntry } from './audit.ts';
import type { ServiceAccountKubeconfigOptions } from './auth/kubeconfig.ts';
import type { LogProvider } from './core.ts';
import type { FaultedRequest, FaultSpec } from './faults.ts';
import type { KubeObject, UserInfo } from './types.ts';

export interface ApiServerOptions {
  /** 0 picks a free port; default 6443 */
  port?: number;
  host?: string;
  /** the admin bearer token; random when not given */
  adminToken?: string;
  auditLogFile?: string;
  /** receives every audit entry as it is recorded */
  auditSink?: (entry: AuditEntry) => void;
  /** watch history kept per resource (older resourceVersions get 410) */
  historyLimit?: number;
  bookmarkIntervalMs?: number;
  ca?: { certPem: string; keyPem: string };
  /** persist objects, the resourceVersion counter, the CA and the admin token here (crash-safe) */
  dataDir?: string;
  /** kube-apiserver's --token-auth-file: CSV `token,user,uid,"group1,group2"` */
  tokensFile?: string;
  /** extra bearer tokens and the users they authenticate as, beside the admin token */
  tokens?: Record<string, UserInfo>;
  /** CustomResourceDefinitions created (and Established) before startApiServer returns */
  crds?: KubeObject[];
  /** container logs for the pods/log subresource (a simulated kubelet supplies them) */
  podLogs?: LogProvider;
  /** where webhook and conversion `service` references lead; keep registering into it after start */
  serviceEndpoints?: ServiceEndpoints;
  /** where the server reports what kube-apiserver would log (a webhook failing open); default console.warn */
  warn?: (message: string) => void;
}

/** Fault injection for reliability tests; also served to admins over HTTP at /debug/faults. */
export interface FaultControls {
  /** fails, delays or conflicts matching requests until removed; returns the fault's id */
  add(spec: FaultSpec): string;
  remove(id: string): boolean;
  clear(): void;
  list(): Array<FaultSpec & { id: string }>;
  /** ends every open watch abruptly (clients must re-list or resume) */
  closeWatches(): void;
  /** holds back watch events until called again with false */
  stallWatches(on: boolean): void;
  /** drops the watch history, so resuming from an old resourceVersion gets 410 Gone */
  expireWatches(): void;
  /** every request a fault answered since the server (re)started, oldest first */
  faulted(): FaultedRequest[];
}

export interface ApiServer {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly adminToken: string;
  /** fault injection on the running server (faults do not survive restart()) */
  readonly faults: FaultControls;
  /** adds a bearer token (kept across restart()) */
  addToken(token: string, user: UserInfo): void;
  /** every request so far, oldest first (the newest 200,000) */
  auditEntries(): AuditEntry[];
  clearAuditEntries(): void;
  /** a serving certificate signed by the cluster's CA, for servers the API server must trust (webhooks) */
  issueCertificate(
    commonName: string,
    dnsNames: string[],
    ips?: string[],
  ): Promise<{ certPem: string; keyPem: string }>;
  /** an admin kubeconfig, or one for the given token/user/namespace */
  kubeconfigYaml(opts?: { token?: string; user?: string; namespace?: string }): string;
  /** a kubeconfig authenticating as an existing ServiceAccount (404 StatusError when it does not exist) */
  serviceAccountKubeconfig(namespace: string, name: string, opts?: ServiceAccountKubeconfigOptions): string;
  writeKubeconfig(path: string): void;
  /**
   * what etcd's compaction does to kube-apiserver: continue tokens and lists at an exact resourceVersion
   * from before now get 410 Gone; watches still resume from the retained history (the watch cache)
   */
  compactStorage(): void;
  /** stops the server and starts it again on the same port with the same options, CA and tokens (state survives with dataDir) */
  restart(): Promise<void>;
  close(): Promise<void>;
}

// The embedded Kubernetes-compatible API server: `startApiServer()` brings up HTTPS on 127.0.0.1 with a
// generated CA, an admin token and the built-in kinds, and returns a handle for tests and `modelplane dev`.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { podSecurityAdmission } from './admission/pod-security/index.ts';
import { type AuditEntry, AuditLog } from './audit.ts';
import { ServiceEndpoints } from './admission/service-endpoints.ts';
import { installCrds } from './crd-install.ts';
import { ADMIN_USER, AuthStack, type TokenAuthenticator } from './auth/index.ts';
import { type LogProvider, ServerCore } from './core.ts';
import { CrdController } from './crd-controller.ts';
import { LifecycleControllers, defaultPropagationPolicy } from './controllers/index.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { kubeTime, newUid } from './objects/meta.ts';
import { Deleter } from './objects/deleter.ts';
import { FaultInjector } from './faults.ts';
import { HttpFront } from './server.ts';
import { loadServerIdentity, saveServerIdentity } from './storage/identity.ts';
import { openPersistence } from './storage/wal/persistence.ts';
import { createCA, type CertificateAuthority } from './tls.ts';
import type { KubeObject, UserInfo } from './types.ts';

export interface ApiServerOptions {
  /** 0 picks a free port */
  port?: number;
  host?: string;
  /** the admin bearer token; random when not given */
  adminToken?: string;
  auditLogFile?: string;
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
  /** receives every audit entry as it is recorded */
  auditSink?: (entry: AuditEntry) => void;
  /** container logs for the pods/log subresource (a simulated kubelet supplies them) */
  podLogs?: LogProvider;
  /** where webhook and conversion `service` references lead; keep registering into it after start */
  serviceEndpoints?: ServiceEndpoints;
}

export interface ApiServer {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly ca: CertificateAuthority;
  readonly adminToken: string;
  readonly core: ServerCore;
  readonly front: HttpFront;
  readonly audit: AuditLog;
  readonly tokens: TokenAuthenticator;
  /** authentication (tokens, ServiceAccount JWTs), RBAC, impersonation, TokenRequest and the review APIs */
  readonly auth: AuthStack;
  readonly faults: FaultInjector;
  /** the in-server kube-controller-manager parts: garbage collector, namespace and ServiceAccount controllers */
  readonly controllers: LifecycleControllers;
  /** stops this server and starts a new one on the same port with the same options (state kept only with dataDir) */
  restart(): Promise<ApiServer>;
  kubeconfigYaml(opts?: { token?: string; user?: string; namespace?: string }): string;
  writeKubeconfig(path: string): void;
  close(): Promise<void>;
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const state = opts.dataDir ? loadServerIdentity(opts.dataDir) : undefined;
  const ca = await createCA(opts.ca ?? state?.ca);
  if (opts.dataDir && !state?.ca) saveServerIdentity(opts.dataDir, { ca: { certPem: ca.certPem, keyPem: ca.keyPem } });
  const serving = await ca.issue('kube-apiserver', ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'], ['127.0.0.1', '::1']);
  const serviceEndpoints = opts.serviceEndpoints ?? new ServiceEndpoints();
  const core = new ServerCore({
    historyLimit: opts.historyLimit,
    bookmarkIntervalMs: opts.bookmarkIntervalMs,
    serviceEndpoints,
    ...(opts.podLogs ? { podLogs: opts.podLogs } : {}),
  });
  core.deleter = new Deleter({ store: core.store, admission: () => core.admission, onDeleted: (rt, obj) => core.notifyDeleted(rt, obj), durable: () => core.durable(), defaultPolicy: defaultPropagationPolicy });
  const persistence = opts.dataDir ? openPersistence(opts.dataDir) : undefined;
  if (persistence) {
    persistence.load(core.store);
    core.durable = () => persistence.flush();
  }
  bootstrap(core);
  const crds = new CrdController(core);
  crds.start();
  const controllers = new LifecycleControllers(core, { caPem: ca.certPem });
  controllers.start();

  const auth = new AuthStack(core, { signingSeed: ca.keyPem, ...(opts.tokensFile ? { tokensFile: opts.tokensFile } : {}) });
  auth.start();
  core.builtinValidators.push(auth.escalationCheck);
  core.builtinValidators.push(podSecurityAdmission(core.store));
  const tokens = auth.tokens;
  const adminToken = opts.adminToken ?? state?.adminToken ?? randomBytes(24).toString('base64url');
  if (opts.dataDir && !state?.adminToken) saveServerIdentity(opts.dataDir, { adminToken });
  tokens.add(adminToken, ADMIN_USER);
  for (const [token, user] of Object.entries(opts.tokens ?? {})) tokens.add(token, user);
  const audit = new AuditLog(undefined, opts.auditLogFile, opts.auditSink);
  let address = `${host}:${opts.port ?? 6443}`;
  const front = new HttpFront(core, auth.authenticator, audit, () => address);
  front.authorizer = auth.rbac;
  front.impersonate = auth.impersonate;
  front.virtualHandlers.push(...auth.virtualHandlers);
  const faults = new FaultInjector(front.watches, () => {
    core.store.compact();
    core.paginator.expireAll();
  });
  front.interceptors.push(faults.intercept);
  front.adminEndpoints.set('/debug/faults', (req, res, path, body) => faults.serveHttp(req, res, path, body));

  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem }, front.handle);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // watches are long-lived
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {});
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 6443, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  address = `${host}:${port}`;
  const url = `https://${host}:${port}`;

  const handle: ApiServer = {
    url, port, caPem: ca.certPem, ca, adminToken, core, front, audit, tokens, auth, faults, controllers,
    async restart() {
      // In place: callers keep their handle (and extra tokens they registered); state survives only with dataDir.
      const extraTokens = [...tokens.tokens];
      await handle.close();
      const next = await startApiServer({ ...opts, port, adminToken, serviceEndpoints, ca: { certPem: ca.certPem, keyPem: ca.keyPem } });
      for (const [t, u] of extraTokens) next.tokens.add(t, u);
      // everything but restart itself: a second restart must replace the servers behind this same handle
      const { restart: _nextRestart, ...rest } = next;
      Object.assign(handle, rest);
      return handle;
    },
    kubeconfigYaml: (o = {}) => kubeconfigYaml({ server: url, caPem: ca.certPem, token: o.token ?? adminToken, ...(o.user ? { user: o.user } : {}), ...(o.namespace ? { namespace: o.namespace } : {}) }),
    writeKubeconfig(path) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, handle.kubeconfigYaml(), { mode: 0o600 });
    },
    async close() {
      crds.stop();
      auth.stop();
      controllers.stop();
      front.watches.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      await audit.close();
      await persistence?.close();
    },
  };
  if (opts.crds?.length) await installCrds(handle, core, opts.crds);
  return handle;
}

/** What a fresh cluster has: the system namespaces. */
function bootstrap(core: ServerCore): void {
  for (const name of SYSTEM_NAMESPACES) {
    if (core.namespaceExists(name)) continue;
    core.store.commit('/namespaces', 'ADDED', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, uid: newUid(), creationTimestamp: kubeTime(), labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
}

export { serviceAccountKubeconfig } from './auth/index.ts';
export { ServiceEndpoints } from './admission/service-endpoints.ts';
export type { LogProvider } from './core.ts';
export type { AuditEntry } from './audit.ts';
export type { KubeObject, UserInfo } from './types.ts';

/** Requests Node's HTTP parser rejects still get a Kubernetes Status (400, or 431 for oversized headers). */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const code = tooLarge ? 431 : 400;
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: tooLarge ? 'request headers are too large' : `malformed HTTP request: ${err.message}`, reason: tooLarge ? 'RequestHeaderFieldsTooLarge' : 'BadRequest', code });
  socket.end(`HTTP/1.1 ${code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

// Builds one running server from its options, each part constructed once and handed what it needs: the
// store (with persisted state loaded), authentication, the core with its admission plugins, the in-server
// controllers, fault injection, the HTTP front and the HTTPS listener.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { podSecurityAdmission } from './admission/pod-security/index.ts';
import { ServiceEndpoints } from './admission/service-endpoints.ts';
import type { ApiServerOptions } from './api.ts';
import { AuditLog } from './audit.ts';
import { ADMIN_USER, AuthStack } from './auth/index.ts';
import { defaultPropagationPolicy, LifecycleControllers } from './controller-manager/index.ts';
import { type CoreOptions, ServerCore } from './core.ts';
import { CrdController } from './crd-controller.ts';
import { installCrds } from './crd-install.ts';
import { FaultInjector } from './faults.ts';
import { WatchRegistry } from './handlers/watch.ts';
import { kubeTime, newUid } from './objects/meta.ts';
import { HttpFront } from './server.ts';
import { loadServerIdentity, saveServerIdentity } from './storage/identity.ts';
import { ObjectStore } from './storage/store.ts';
import { openPersistence } from './storage/wal/persistence.ts';
import { type CertificateAuthority, createCA } from './tls.ts';

/** startApiServer's options plus seams only this package's tests use */
export interface AssemblyOptions extends ApiServerOptions {
  /** wraps the webhook admission chain (a test puts a refusing step in front of it) */
  wrapAdmission?: CoreOptions['wrapAdmission'];
}

/** One running server and its parts (the handle swaps in a new one on restart). */
export interface RunningServer {
  url: string;
  port: number;
  ca: CertificateAuthority;
  adminToken: string;
  core: ServerCore;
  front: HttpFront;
  audit: AuditLog;
  auth: AuthStack;
  faults: FaultInjector;
  controllers: LifecycleControllers;
  close(): Promise<void>;
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const SERVING_NAMES = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];

export async function assembleServer(opts: AssemblyOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const identity = await loadIdentity(opts);
  const { core, auth, persistence } = openCore(opts, identity);
  createSystemNamespaces(core);
  const crds = new CrdController(core);
  const controllers = new LifecycleControllers(core, { caPem: identity.ca.certPem });
  crds.start();
  controllers.start();
  auth.start();
  const audit = new AuditLog(undefined, opts.auditLogFile, opts.auditSink);
  const watches = new WatchRegistry();
  const faults = new FaultInjector(watches, () => {
    core.store.compact();
    core.paginator.expireAll();
  });
  // the address the front reports (e.g. in the discovery's serverAddressByClientCIDRs): known once listening
  let address = `${host}:${opts.port ?? 6443}`;
  const front = new HttpFront({
    core,
    watches,
    audit,
    authenticator: auth.authenticator,
    authorizer: auth.rbac,
    impersonate: auth.impersonate,
    serverAddress: () => address,
    interceptors: [faults.intercept],
    virtualHandlers: auth.virtualHandlers,
    adminEndpoints: { '/debug/faults': (req, res, path, body) => faults.serveHttp(req, res, path, body) },
  });
  const listener = await listen(front, identity.ca, host, opts.port ?? 6443);
  address = `${host}:${listener.port}`;
  const running: RunningServer = {
    url: `https://${address}`,
    port: listener.port,
    ca: identity.ca,
    adminToken: identity.adminToken,
    core,
    front,
    audit,
    auth,
    faults,
    controllers,
    async close() {
      crds.stop();
      auth.stop();
      controllers.stop();
      watches.closeAll();
      await listener.close();
      await audit.close();
      await persistence?.close();
    },
  };
  if (opts.crds?.length)
    await installCrds(
      { url: running.url, caPem: identity.ca.certPem, adminToken: identity.adminToken },
      core,
      opts.crds,
    );
  return running;
}

/**
 * The store (loaded from the data dir when there is one), the authentication and authorization stack with
 * the admin's and the given tokens, and the request-handling core over them.
 */
function openCore(opts: AssemblyOptions, identity: { ca: CertificateAuthority; adminToken: string }) {
  const store = new ObjectStore(opts.historyLimit);
  const persistence = opts.dataDir ? openPersistence(opts.dataDir) : undefined;
  persistence?.load(store);
  const auth = new AuthStack(store, {
    signingSeed: identity.ca.keyPem,
    ...(opts.tokensFile ? { tokensFile: opts.tokensFile } : {}),
  });
  auth.tokens.add(identity.adminToken, ADMIN_USER);
  for (const [token, user] of Object.entries(opts.tokens ?? {})) auth.tokens.add(token, user);
  const core = new ServerCore({
    store,
    bookmarkIntervalMs: opts.bookmarkIntervalMs,
    serviceEndpoints: opts.serviceEndpoints ?? new ServiceEndpoints(),
    admissionPlugins: [auth.escalationCheck, podSecurityAdmission(store)],
    defaultPropagationPolicy,
    ...(persistence ? { durable: () => persistence.flush() } : {}),
    ...(opts.podLogs ? { podLogs: opts.podLogs } : {}),
    ...(opts.warn ? { warn: opts.warn } : {}),
    ...(opts.wrapAdmission ? { wrapAdmission: opts.wrapAdmission } : {}),
  });
  return { core, auth, persistence };
}

/** the CA and admin token: given, else persisted in the data dir, else new (and persisted there) */
async function loadIdentity(opts: AssemblyOptions): Promise<{ ca: CertificateAuthority; adminToken: string }> {
  const state = opts.dataDir ? loadServerIdentity(opts.dataDir) : undefined;
  const ca = await createCA(opts.ca ?? state?.ca);
  if (opts.dataDir && !state?.ca) saveServerIdentity(opts.dataDir, { ca: { certPem: ca.certPem, keyPem: ca.keyPem } });
  const adminToken = opts.adminToken ?? state?.adminToken ?? randomBytes(24).toString('base64url');
  if (opts.dataDir && !state?.adminToken) saveServerIdentity(opts.dataDir, { adminToken });
  return { ca, adminToken };
}

/** What a fresh cluster has: the system namespaces. */
function createSystemNamespaces(core: ServerCore): void {
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

/** HTTPS on host:port with a serving certificate from the cluster CA; close() also drops open connections. */
async function listen(
  front: HttpFront,
  ca: CertificateAuthority,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const serving = await ca.issue('kube-apiserver', SERVING_NAMES, ['127.0.0.1', '::1']);
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem }, front.handle);
  server.keepAliveTimeout = 65_000;
  // kube-apiserver's ReadHeaderTimeout: a client that never finishes its header block is cut after 32 s,
  // checked every 2 s (node's default check, every 30 s, would let it hold the connection a minute)
  server.headersTimeout = 32_000;
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 2_000;
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
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** Requests Node's HTTP parser rejects still get a Kubernetes Status (400, or 431 for oversized headers). */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const code = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: tooLarge ? 'request headers are too large' : `malformed HTTP request: ${err.message}`,
    reason: tooLarge ? 'RequestHeaderFieldsTooLarge' : 'BadRequest',
    code,
  });
  socket.end(
    `HTTP/1.1 ${code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

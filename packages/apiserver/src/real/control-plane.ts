// The real Kubernetes control plane for tests and `modelplane dev --cluster real`: etcd,
// kube-apiserver and kube-controller-manager built from their Go modules (tools/kube/build.sh), on free
// loopback ports, with fresh certificates, a ServiceAccount signing key, RBAC authorization, an audit
// log and a temporary directory that `stop()` removes. See docs/real-kubernetes.md for why each flag.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { kubeconfigYaml } from '../kubeconfig.ts';
import { createCA } from '../tls.ts';
import { RealAuditLog } from './audit.ts';
import { type KubeBinary, kubeBinDir, requireKubeBinaries } from './binaries.ts';
import { FRONT_PROXY_CLIENT, KCM_USER, REAL_ADMIN_USER, type RealPki, SERVICE_CIDR, writeRealPki } from './pki.ts';
import { freePort, waitUntil } from './ports.ts';
import { ControlPlaneProcess } from './process.ts';

export interface RealControlPlaneOptions {
  /** where the binaries are (default .tools/kube/bin or MODELPLANE_KUBE_BIN) */
  binDir?: string;
  /** kube-apiserver's port (default 0: a free one) */
  port?: number;
  /** start kube-controller-manager (default true) */
  controllerManager?: boolean;
  /** extra kube-apiserver flags, e.g. `--feature-gates=…` */
  apiServerArgs?: string[];
  /** extra kube-controller-manager flags, e.g. `--horizontal-pod-autoscaler-sync-period=5s` */
  controllerManagerArgs?: string[];
  /** how long each component may take to become ready (default 60 s) */
  startTimeoutMs?: number;
}

export interface RealControlPlane {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly adminToken: string;
  readonly adminUser: string;
  /** etcd's client URL (plain HTTP on loopback; its v3 JSON gateway serves e.g. /v3/kv/compaction) */
  readonly etcdUrl: string;
  /** the temporary directory holding certificates, data, logs (removed by stop) */
  readonly dir: string;
  /** kube-apiserver's audit log (audit.k8s.io/v1 Event JSON lines, level Metadata) */
  readonly auditLogFile: string;
  readonly pki: RealPki;
  /** etcd, kube-apiserver and (unless disabled) kube-controller-manager, in start order */
  readonly processes: readonly ControlPlaneProcess[];
  kubeconfigYaml(opts?: { token?: string; user?: string; namespace?: string }): string;
  /** a kubeconfig for any user name and groups: a client certificate from the cluster's CA (kube-apiserver's --client-ca-file) */
  kubeconfigForUser(name: string, groups: string[]): Promise<string>;
  /**
   * The TLS material of a kubelet serving on `ips`: a serving certificate from the cluster CA (which
   * kube-apiserver's --kubelet-certificate-authority trusts) and the CA that signed kube-apiserver's
   * client certificate, for the kubelet to require it.
   */
  kubeletTls(ips: string[]): Promise<KubeletTls>;
  /** every completed request so far, read incrementally from the audit log */
  audit: RealAuditLog;
  writeKubeconfig(path: string): void;
  /** stops kube-apiserver and starts it again on the same port (etcd keeps every object) */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface KubeletTls {
  certPem: string;
  keyPem: string;
  /** verifies kube-apiserver's kubelet client certificate */
  clientCaPem: string;
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

/** the controllers kube-controller-manager does not run here: the nodes are simulated (no kubelet heartbeats, no cloud) and the simulators bind volumes */
const KCM_CONTROLLERS =
  '*,-node-lifecycle-controller,-persistentvolume-binder-controller,-persistentvolume-attach-detach-controller,-persistentvolume-expander-controller,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller,-node-ipam-controller';

interface Launch {
  bins: Record<KubeBinary, string>;
  dir: string;
  timeoutMs: number;
}

async function startEtcd(l: Launch): Promise<{ proc: ControlPlaneProcess; url: string }> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const proc = new ControlPlaneProcess(
    'etcd',
    l.bins.etcd,
    [
      '--name=default',
      `--data-dir=${join(l.dir, 'etcd')}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
      // progress notifications let kube-apiserver's watch cache advance on idle resources and send bookmarks
      '--experimental-watch-progress-notify-interval=5s',
    ],
    join(l.dir, 'etcd.log'),
  );
  await waitUntil('etcd', { url: `${url}/health` }, (r) => r.status === 200 && r.body.includes('true'), {
    timeoutMs: l.timeoutMs,
    alive: () => proc.running,
    describe: () => proc.tail(),
  });
  return { proc, url };
}

function apiServerArgs(l: Launch, pki: RealPki, etcdUrl: string, port: number, extra: string[]): string[] {
  writeFileSync(join(l.dir, 'audit-policy.yaml'), AUDIT_POLICY);
  return [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--advertise-address=127.0.0.1',
    `--tls-cert-file=${pki.files.servingCert}`,
    `--tls-private-key-file=${pki.files.servingKey}`,
    `--client-ca-file=${pki.files.ca}`,
    `--token-auth-file=${pki.files.tokens}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.files.saPub}`,
    `--service-account-signing-key-file=${pki.files.saKey}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--allow-privileged=true',
    // nothing routes ClusterIPs here: webhook Services are ExternalName Services naming a loopback address
    // (see docs/real-kubernetes.md), and the `kubernetes` Service needs no endpoints
    '--endpoint-reconciler-type=none',
    // pods/log goes to the kubelet of the pod's node: the simulated kubelets serve it on the node's InternalIP
    // (their Hostname addresses resolve nowhere), with a certificate from the cluster CA, and accept
    // kube-apiserver's client certificate (see docs/real-kubernetes.md)
    '--kubelet-preferred-address-types=InternalIP',
    `--kubelet-certificate-authority=${pki.files.ca}`,
    `--kubelet-client-certificate=${pki.files.kubeletClientCert}`,
    `--kubelet-client-key=${pki.files.kubeletClientKey}`,
    // the API aggregation layer (APIService → an extension API server such as KEDA's metrics server): the
    // aggregator proxies with its front-proxy client certificate and the user in X-Remote-* headers, and
    // publishes the front-proxy CA in kube-system/extension-apiserver-authentication for the servers to trust
    `--requestheader-client-ca-file=${pki.files.frontProxyCa}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.files.frontProxyClientCert}`,
    `--proxy-client-key-file=${pki.files.frontProxyClientKey}`,
    `--audit-policy-file=${join(l.dir, 'audit-policy.yaml')}`,
    `--audit-log-path=${join(l.dir, 'audit.log')}`,
    '--audit-log-mode=blocking',
    `--cert-dir=${join(l.dir, 'apiserver-certs')}`,
    '--profiling=false',
    '--v=1',
    ...extra,
  ];
}

async function startApiServerProcess(
  l: Launch,
  args: string[],
  ready: { url: string; caPem: string; token: string },
): Promise<ControlPlaneProcess> {
  const proc = new ControlPlaneProcess(
    'kube-apiserver',
    l.bins['kube-apiserver'],
    args,
    join(l.dir, 'kube-apiserver.log'),
  );
  await waitUntil('kube-apiserver', { ...ready, url: `${ready.url}/readyz` }, (r) => r.status === 200, {
    timeoutMs: l.timeoutMs,
    alive: () => proc.running,
    describe: () => proc.tail(),
  });
  return proc;
}

async function startControllerManager(
  l: Launch,
  pki: RealPki,
  kubeconfig: string,
  admin: { url: string; caPem: string; token: string },
  extra: readonly string[],
): Promise<ControlPlaneProcess> {
  const kcmConfig = join(l.dir, 'kube-controller-manager.kubeconfig');
  writeFileSync(kcmConfig, kubeconfig, { mode: 0o600 });
  const proc = new ControlPlaneProcess(
    'kube-controller-manager',
    l.bins['kube-controller-manager'],
    [
      `--kubeconfig=${kcmConfig}`,
      '--secure-port=0',
      '--leader-elect=false',
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${pki.files.saKey}`,
      `--root-ca-file=${pki.files.ca}`,
      `--cluster-signing-cert-file=${pki.files.ca}`,
      `--cluster-signing-key-file=${pki.files.caKey}`,
      `--controllers=${KCM_CONTROLLERS}`,
      '--kube-api-qps=200',
      '--kube-api-burst=400',
      '--v=1',
      ...extra,
    ],
    join(l.dir, 'kube-controller-manager.log'),
  );
  // its ServiceAccount controller creating default/default shows it is up and syncing
  await waitUntil(
    'kube-controller-manager',
    { ...admin, url: `${admin.url}/api/v1/namespaces/default/serviceaccounts/default` },
    (r) => r.status === 200,
    { timeoutMs: l.timeoutMs, alive: () => proc.running, describe: () => proc.tail() },
  );
  return proc;
}

export async function startRealControlPlane(opts: RealControlPlaneOptions = {}): Promise<RealControlPlane> {
  const l: Launch = {
    bins: requireKubeBinaries(opts.binDir ?? kubeBinDir()),
    dir: mkdtempSync(join(tmpdir(), 'modelplane-real-')),
    timeoutMs: opts.startTimeoutMs ?? 60_000,
  };
  const processes: ControlPlaneProcess[] = [];
  // stops what started, newest first, then removes the working directory (certificates, etcd data, logs)
  const stop = async () => {
    for (const p of [...processes].reverse()) await p.stop();
    rmSync(l.dir, { recursive: true, force: true });
  };
  try {
    const pki = await writeRealPki(l.dir);
    const etcd = await startEtcd(l);
    processes.push(etcd.proc);
    const port = opts.port || (await freePort());
    const url = `https://127.0.0.1:${port}`;
    const admin = { url, caPem: pki.caPem, token: pki.adminToken };
    const args = apiServerArgs(l, pki, etcd.url, port, opts.apiServerArgs ?? []);
    processes.push(await startApiServerProcess(l, args, admin));
    const config = kubeconfigs(url, pki);
    if (opts.controllerManager !== false) {
      const kcmConfig = config({ token: pki.kcmToken, user: KCM_USER });
      const extra = opts.controllerManagerArgs ?? [];
      processes.push(await startControllerManager(l, pki, kcmConfig, admin, extra));
    }
    return {
      ...controlPlaneParts(l, pki, etcd.url, url, port, processes),
      kubeconfigYaml: config,
      writeKubeconfig: (path) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, config(), { mode: 0o600 });
      },
      async restartApiServer() {
        const i = processes.findIndex((p) => p.name === 'kube-apiserver');
        await processes[i]!.stop();
        processes[i] = await startApiServerProcess(l, args, admin);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** kubeconfigs for the control plane: the admin's by default, or another token, user name or namespace */
function kubeconfigs(url: string, pki: RealPki) {
  return (o: { token?: string; user?: string; namespace?: string } = {}) =>
    kubeconfigYaml({
      server: url,
      caPem: pki.caPem,
      token: o.token ?? pki.adminToken,
      user: o.user ?? REAL_ADMIN_USER,
      cluster: 'modelplane-real',
      ...(o.namespace ? { namespace: o.namespace } : {}),
    });
}

/** where the running control plane is and what it is made of: addresses, credentials, files and processes */
function controlPlaneParts(
  l: Launch,
  pki: RealPki,
  etcdUrl: string,
  url: string,
  port: number,
  processes: ControlPlaneProcess[],
): Omit<RealControlPlane, 'kubeconfigYaml' | 'writeKubeconfig' | 'restartApiServer' | 'stop'> {
  return {
    url,
    port,
    caPem: pki.caPem,
    adminToken: pki.adminToken,
    adminUser: REAL_ADMIN_USER,
    etcdUrl,
    dir: l.dir,
    auditLogFile: join(l.dir, 'audit.log'),
    pki,
    processes,
    kubeconfigForUser: (name, groups) => clientCertKubeconfig(url, pki, name, groups),
    // serving certificates for the simulated kubelets, which kube-apiserver dials for pods/log
    kubeletTls: async (ips) => {
      const ca = await createCA({ certPem: pki.caPem, keyPem: pki.caKeyPem });
      const serving = await ca.issue('kubelet', ['localhost'], ips);
      return { ...serving, clientCaPem: pki.caPem };
    },
    audit: new RealAuditLog(join(l.dir, 'audit.log')),
  };
}

async function clientCertKubeconfig(url: string, pki: RealPki, name: string, groups: string[]): Promise<string> {
  const ca = await createCA({ certPem: pki.caPem, keyPem: pki.caKeyPem });
  const cert = await ca.issue(name, ['localhost'], [], 365, groups);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'modelplane-real', cluster: { server: url, 'certificate-authority-data': b64(pki.caPem) } }],
    users: [{ name, user: { 'client-certificate-data': b64(cert.certPem), 'client-key-data': b64(cert.keyPem) } }],
    contexts: [{ name: `${name}@modelplane-real`, context: { cluster: 'modelplane-real', user: name } }],
    'current-context': `${name}@modelplane-real`,
  });
}

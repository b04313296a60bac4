// Real KEDA beside the real control plane (docs/real-kubernetes.md, "KEDA"): its operator and its metrics
// API server, built from their Go module by tools/keda/build.sh, with KEDA's own CRDs. The metrics server
// is registered through the API aggregation layer (an APIService for external.metrics.k8s.io whose
// ExternalName Service names loopback), so kube-controller-manager's HPA controller reads the External
// metrics of the HPAs that KEDA's operator makes from ScaledObjects. The two KEDA processes talk gRPC
// with mutual TLS, from certificates made here.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createCA } from '../tls.ts';
import type { RealControlPlane } from './control-plane.ts';
import { freePort, waitUntil } from './ports.ts';
import { ControlPlaneProcess } from './process.ts';

export const KEDA_BUILD_COMMAND = 'npm run build:keda';
export const KEDA_NAMESPACE = 'keda';
export const EXTERNAL_METRICS_APISERVICE = 'v1beta1.external.metrics.k8s.io';

export function kedaBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.MODELPLANE_KEDA_BIN ?? join('.tools', 'keda', 'bin'));
}

/** why KEDA cannot start from `dir`, or undefined when it can */
export function missingKeda(dir = kedaBinDir()): string | undefined {
  const missing = ['keda-operator', 'keda-metrics-apiserver', 'crds'].filter((f) => !existsSync(join(dir, f)));
  if (missing.length === 0) return undefined;
  return `KEDA is not built: ${missing.join(', ')} missing from ${dir}. Run "${KEDA_BUILD_COMMAND}" (needs Go; builds KEDA's operator and metrics server from its Go module, see docs/real-kubernetes.md)`;
}

export interface RealKeda {
  readonly operator: ControlPlaneProcess;
  readonly metricsServer: ControlPlaneProcess;
  readonly dir: string;
  stop(): Promise<void>;
}

export interface RealKedaOptions {
  binDir?: string;
  startTimeoutMs?: number;
}

/** installs KEDA's CRDs, starts its operator and metrics server, and waits until the APIService is Available */
export async function startRealKeda(cp: RealControlPlane, opts: RealKedaOptions = {}): Promise<RealKeda> {
  const bin = opts.binDir ?? kedaBinDir();
  const why = missingKeda(bin);
  if (why) throw new Error(why);
  const timeoutMs = opts.startTimeoutMs ?? 90_000;
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-real-keda-'));
  const processes: ControlPlaneProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const api = apiOf(cp);
    await installKedaCrds(cp, bin, timeoutMs);
    await api.apply(`/api/v1/namespaces/${KEDA_NAMESPACE}`, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: KEDA_NAMESPACE },
    });
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, cp.kubeconfigYaml(), { mode: 0o600 });
    await writeGrpcCerts(dir);
    const ports = { grpc: await freePort(), probe: await freePort(), metrics: await freePort() };
    // WATCH_NAMESPACE must be set; empty means every namespace
    const env = {
      KUBECONFIG: kubeconfig,
      KEDA_CLUSTER_OBJECT_NAMESPACE: KEDA_NAMESPACE,
      POD_NAMESPACE: KEDA_NAMESPACE,
      WATCH_NAMESPACE: '',
    };
    const operator = new ControlPlaneProcess(
      'keda-operator',
      join(bin, 'keda-operator'),
      [
        `--metrics-bind-address=127.0.0.1:${ports.metrics}`,
        `--health-probe-bind-address=127.0.0.1:${ports.probe}`,
        `--metrics-service-bind-address=127.0.0.1:${ports.grpc}`,
        `--cert-dir=${dir}`,
        '--enable-cert-rotation=false',
        '--enable-webhook-patching=false',
        '--leader-elect=false',
      ],
      join(dir, 'keda-operator.log'),
      env,
    );
    processes.push(operator);
    await waitUntil('keda-operator', { url: `http://127.0.0.1:${ports.probe}/readyz` }, (r) => r.status === 200, {
      timeoutMs,
      alive: () => operator.running,
      describe: () => operator.tail(),
    });
    const metricsServer = await startMetricsServer(cp, api, bin, dir, kubeconfig, ports.grpc, env, timeoutMs);
    processes.push(metricsServer);
    return { operator, metricsServer, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function startMetricsServer(
  cp: RealControlPlane,
  api: ReturnType<typeof apiOf>,
  bin: string,
  dir: string,
  kubeconfig: string,
  grpcPort: number,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ControlPlaneProcess> {
  const securePort = await freePort();
  const proc = new ControlPlaneProcess(
    'keda-metrics-apiserver',
    join(bin, 'keda-metrics-apiserver'),
    [
      `--secure-port=${securePort}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${dir}`,
      `--lister-kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--metrics-service-address=127.0.0.1:${grpcPort}`,
      `--port=${await freePort()}`,
    ],
    join(dir, 'keda-metrics-apiserver.log'),
    env,
  );
  // kube-apiserver reaches it as it reaches any extension API server: APIService → Service; the Service is
  // an ExternalName naming loopback, since nothing routes ClusterIPs here
  await api.apply(`/api/v1/namespaces/${KEDA_NAMESPACE}/services/keda-metrics-apiserver`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'keda-metrics-apiserver', namespace: KEDA_NAMESPACE },
    spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ name: 'https', port: securePort }] },
  });
  await api.apply(`/apis/apiregistration.k8s.io/v1/apiservices/${EXTERNAL_METRICS_APISERVICE}`, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: EXTERNAL_METRICS_APISERVICE },
    spec: {
      group: 'external.metrics.k8s.io',
      version: 'v1beta1',
      service: { name: 'keda-metrics-apiserver', namespace: KEDA_NAMESPACE, port: securePort },
      // the metrics server serves a self-signed certificate it makes at start
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  });
  await waitUntil(
    `the ${EXTERNAL_METRICS_APISERVICE} APIService`,
    {
      url: `${cp.url}/apis/apiregistration.k8s.io/v1/apiservices/${EXTERNAL_METRICS_APISERVICE}`,
      caPem: cp.caPem,
      token: cp.adminToken,
    },
    (r) => r.status === 200 && /"type":"Available","status":"True"/.test(r.body.replace(/\s/g, '')),
    { timeoutMs, alive: () => proc.running, describe: () => proc.tail() },
  );
  return proc;
}

/** KEDA's own CRDs (ScaledObject, ScaledJob, TriggerAuthentication, …), applied and Established */
export async function installKedaCrds(cp: RealControlPlane, bin = kedaBinDir(), timeoutMs = 90_000): Promise<void> {
  const why = missingKeda(bin);
  if (why) throw new Error(why);
  const api = apiOf(cp);
  for (const file of readdirSync(join(bin, 'crds'))
    .filter((f) => f.endsWith('.yaml'))
    .sort())
    for (const doc of parseAllDocuments(readFileSync(join(bin, 'crds', file), 'utf8'))) {
      const crd = doc.toJS() as { metadata?: { name?: string } } | null;
      if (crd?.metadata?.name)
        await api.apply(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd);
    }
  await waitUntil(
    'the ScaledObject CRD Established',
    {
      url: `${cp.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/scaledobjects.keda.sh`,
      caPem: cp.caPem,
      token: cp.adminToken,
    },
    (r) => r.status === 200 && /"type":"Established","status":"True"/.test(r.body.replace(/\s/g, '')),
    { timeoutMs, alive: () => true, describe: () => '' },
  );
}

/** the mutual-TLS material both KEDA processes read from their --cert-dir (ca.crt, tls.crt, tls.key) */
async function writeGrpcCerts(dir: string): Promise<void> {
  const ca = await createCA(undefined, 'modelplane-real-keda-ca');
  const names = ['localhost', 'keda-operator', `keda-operator.${KEDA_NAMESPACE}.svc`];
  const cert = await ca.issue('keda-operator', names, ['127.0.0.1']);
  writeFileSync(join(dir, 'ca.crt'), ca.certPem);
  writeFileSync(join(dir, 'tls.crt'), cert.certPem);
  writeFileSync(join(dir, 'tls.key'), cert.keyPem, { mode: 0o600 });
}

/** server-side apply as the admin, for the few objects KEDA's installation needs */
function apiOf(cp: RealControlPlane) {
  return {
    apply(path: string, body: unknown): Promise<void> {
      return new Promise((ok, fail) => {
        const url = new URL(`${cp.url}${path}?fieldManager=modelplane-keda&force=true`);
        const req = request(
          url,
          {
            method: 'PATCH',
            ca: cp.caPem,
            headers: { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/apply-patch+yaml' },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (text += d));
            res.on('end', () =>
              (res.statusCode ?? 0) < 300
                ? ok()
                : fail(new Error(`applying ${path}: HTTP ${res.statusCode}: ${text.slice(0, 500)}`)),
            );
          },
        );
        req.on('error', fail);
        req.end(JSON.stringify(body));
      });
    },
  };
}

// The envtest-like entry point: a test cluster on the chosen backend, a kubeconfig (as YAML and as a file)
// for it, and the real kubectl pointed at it with its own cache dir.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../audit.ts';
import type { ApiServer } from '../index.ts';
import type { RealControlPlane } from '../real/index.ts';
import { type BackendOptions, selectBackend, type TestBackendName } from './backends/index.ts';
import { type KubectlResult, requireKubectl, runKubectl } from './kubectl.ts';

export interface TestClusterOptions extends BackendOptions {
  /** default: $MODELPLANE_TEST_BACKEND, else 'embedded' */
  backend?: TestBackendName;
}

export interface TestCluster {
  readonly backend: TestBackendName;
  readonly url: string;
  readonly caPem: string;
  readonly adminToken: string;
  /** the embedded server's handle (tokens, faults, restart); on the real backend reading it throws, naming what to use instead */
  readonly server: ApiServer;
  /** the real control plane; undefined on the embedded backend */
  readonly real: RealControlPlane | undefined;
  /** every completed request so far, on either backend */
  auditEntries(): AuditEntry[];
  /** a kubeconfig authenticating as ServiceAccount `namespace/name` */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /** a temporary directory owned by the cluster (removed by stop) */
  readonly dir: string;
  /** the admin kubeconfig, as YAML */
  readonly kubeconfig: string;
  /** the admin kubeconfig, as a file in `dir` */
  readonly kubeconfigPath: string;
  /** kubectl against the cluster; any exit code */
  kubectl(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** kubectl that must succeed; returns stdout */
  k(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestCluster(opts: TestClusterOptions = {}): Promise<TestCluster> {
  requireKubectl();
  const { backend: explicit, ...backendOpts } = opts;
  const backend = selectBackend(explicit);
  const started = await backend.start(backendOpts);
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-test-'));
  const kubeconfig = started.kubeconfigYaml();
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
  const kubectl = (args: string[], o: { input?: string; timeoutMs?: number } = {}) =>
    runKubectl(['--kubeconfig', kubeconfigPath, '--cache-dir', join(dir, 'cache'), ...args], o.input, o.timeoutMs);
  return {
    backend: backend.name,
    get url() {
      return started.url;
    },
    caPem: started.caPem,
    adminToken: started.adminToken,
    get server() {
      return started.server;
    },
    real: started.real,
    auditEntries: () => started.auditEntries(),
    serviceAccountKubeconfig: (namespace, name) => started.serviceAccountKubeconfig(namespace, name),
    dir,
    kubeconfig,
    kubeconfigPath,
    kubectl,
    async k(args, input) {
      const r = await kubectl(args, input === undefined ? {} : { input });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async stop() {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

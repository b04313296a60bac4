// The real backend: etcd + kube-apiserver + kube-controller-manager built from their Go modules
// (tools/kube/build.sh; docs/real-kubernetes.md), on loopback ports with their own certificates. The
// requested CRDs are created and waited for until Established, as the embedded backend does.
import type { ApiServer } from '../../index.ts';
import { realServiceAccountKubeconfig, startRealControlPlane } from '../../real/index.ts';
import type { KubeObject } from '../../types.ts';
import { type RawTarget, raw } from '../raw.ts';
import type { BackendCluster, BackendOptions } from './types.ts';

async function installCrd(target: RawTarget, crd: KubeObject): Promise<void> {
  const created = await raw(target, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (created.status !== 201 && created.status !== 409)
    throw new Error(
      `real backend: creating CRD ${crd.metadata?.name} failed: HTTP ${created.status} ${created.text.slice(0, 500)}`,
    );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await raw(
      target,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name}`,
    );
    const conditions: Array<{ type: string; status: string }> =
      got.status === 200 ? (got.json().status?.conditions ?? []) : [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline)
      throw new Error(
        `real backend: CRD ${crd.metadata?.name} not Established after 30 s (conditions: ${JSON.stringify(conditions)})`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startRealBackend(opts: BackendOptions): Promise<BackendCluster> {
  const plane = await startRealControlPlane({ ...(opts.port ? { port: opts.port } : {}) });
  try {
    for (const crd of opts.crds ?? []) await installCrd(plane, crd);
  } catch (err) {
    await plane.stop();
    throw err;
  }
  return {
    url: plane.url,
    caPem: plane.caPem,
    adminToken: plane.adminToken,
    kubeconfigYaml: () => plane.kubeconfigYaml(),
    get server(): ApiServer {
      throw new Error(
        "cluster.server is the embedded API server's handle (faults, tokens, its in-memory audit log) and this suite runs on the real backend: use cluster.auditEntries() / cluster.serviceAccountKubeconfig(), startFaultInjection(cluster.real ?? cluster.server) for faults and restarts, or mark the test embedded-only with the reason",
      );
    },
    real: plane,
    auditEntries: () => plane.audit.entries(),
    serviceAccountKubeconfig: (namespace, name) => realServiceAccountKubeconfig(plane, namespace, name),
    stop: () => plane.stop(),
  };
}

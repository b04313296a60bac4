// The convergence benchmarks' API server on the real backend: etcd + kube-apiserver +
// kube-controller-manager (docs/real-kubernetes.md), with one client certificate per benchmark user so
// kube-apiserver's audit log tells the operator's requests from the benchmark's own, as tokens do on the
// embedded server.
import { startRealControlPlane } from '@modelplane/apiserver/testing';
import { type CustomResourceDefinition, KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import type { BenchServer } from './harness.ts';

export async function startRealBenchServer(
  crds: readonly CustomResourceDefinition[],
  namespaces: readonly string[],
): Promise<BenchServer> {
  const plane = await startRealControlPlane();
  try {
    const admin = await KubeClient.create(plane.kubeconfigYaml(), { fieldManager: 'bench-admin' });
    for (const crd of crds) await ensureCrd(admin, crd);
    for (const name of namespaces) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return {
      backend: 'real',
      admin,
      kubeconfigFor: (name) => plane.kubeconfigForUser(name, ['system:masters']),
      requests: (users, from = 0) =>
        plane.audit
          .entries()
          .slice(from)
          .filter((e) => users.has(e.user)),
      get auditLength() {
        return plane.audit.length;
      },
      async close() {
        admin.close();
        await plane.stop();
      },
    };
  } catch (err) {
    await plane.stop();
    throw err;
  }
}

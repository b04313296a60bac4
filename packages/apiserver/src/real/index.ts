// The real Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager built from their Go
// modules by tools/kube/build.sh) for tests and `modelplane dev --cluster real`; docs/real-kubernetes.md.

export { RealAuditLog } from './audit.ts';
export {
  KUBE_BINARIES,
  KUBE_BUILD_COMMAND,
  type KubeBinary,
  kubeBinDir,
  missingKubeBinaries,
  requireKubeBinaries,
} from './binaries.ts';
export {
  type KubeletTls,
  type RealControlPlane,
  type RealControlPlaneOptions,
  startRealControlPlane,
} from './control-plane.ts';
export {
  EXTERNAL_METRICS_APISERVICE,
  installKedaCrds,
  KEDA_BUILD_COMMAND,
  KEDA_NAMESPACE,
  kedaBinDir,
  missingKeda,
  type RealKeda,
  type RealKedaOptions,
  startRealKeda,
} from './keda.ts';
export { REAL_ADMIN_USER } from './pki.ts';
export { realServiceAccountKubeconfig, requestServiceAccountToken, type TokenOptions } from './tokens.ts';

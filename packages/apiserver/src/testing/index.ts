// `@modelplane/apiserver/testing`: what test suites use to get a cluster (envtest's role) and to talk to it
// below the client libraries (kubectl, raw HTTPS, watch streams).

export {
  KUBE_BINARIES,
  KUBE_BUILD_COMMAND,
  type KubeletTls,
  kubeBinDir,
  missingKeda,
  missingKubeBinaries,
  RealAuditLog,
  type RealControlPlane,
  type RealControlPlaneOptions,
  type RealKeda,
  realServiceAccountKubeconfig,
  requestServiceAccountToken,
  requireKubeBinaries,
  startRealControlPlane,
  startRealKeda,
} from '../real/index.ts';
export { type CertificateAuthority, createCA } from '../tls.ts';
export { embeddedOnly, realOnly, type TestBackend, testBackend } from './backend.ts';
export {
  type BackendCluster,
  type BackendOptions,
  type StartBackend,
  TEST_BACKEND_ENV,
  type TestBackendName,
} from './backends/index.ts';
export { startTestCluster, type TestCluster, type TestClusterOptions } from './cluster.ts';
export {
  type FaultedRequest,
  type FaultInjection,
  FaultProxy,
  type FaultSpec,
  startFaultInjection,
  startFaultProxy,
  type TestFaults,
} from './faults/index.ts';
export { KUBECTL, type KubectlResult, requireKubectl, runKubectl } from './kubectl.ts';
export { prng } from './prng.ts';
export { openWatch, type RawResponse, type RawTarget, raw, type WatchEvent } from './raw.ts';

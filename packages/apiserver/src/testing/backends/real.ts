// The real backend: kube-apiserver + etcd + kube-controller-manager built from their Go modules. Not built
// into this package yet; selecting it fails with what to do instead of silently running the embedded server.
import type { BackendCluster, BackendOptions } from './types.ts';

export async function startRealBackend(_opts: BackendOptions): Promise<BackendCluster> {
  throw new Error(
    'test backend "real" is not available yet: build with the repository\'s real-cluster tools (npm run test:real) once they exist, or use backend "embedded" (unset MODELPLANE_TEST_BACKEND)',
  );
}

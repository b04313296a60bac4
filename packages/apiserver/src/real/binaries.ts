// Where the real control plane's binaries live (built by tools/kube/build.sh into .tools/kube/bin, or
// MODELPLANE_KUBE_BIN), and the message that names the build command when they are missing.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const KUBE_BUILD_COMMAND = 'npm run build:kube';
export const KUBE_BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager'] as const;
export type KubeBinary = (typeof KUBE_BINARIES)[number];

export function kubeBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.MODELPLANE_KUBE_BIN ?? join('.tools', 'kube', 'bin'));
}

/** the binaries missing from `dir` (empty when the real control plane can start) */
export function missingKubeBinaries(dir = kubeBinDir()): KubeBinary[] {
  return KUBE_BINARIES.filter((b) => !existsSync(join(dir, b)));
}

/** throws an error naming the build command when a binary is missing */
export function requireKubeBinaries(dir = kubeBinDir()): Record<KubeBinary, string> {
  const missing = missingKubeBinaries(dir);
  if (missing.length > 0) {
    throw new Error(
      `the real Kubernetes control plane is not built: ${missing.join(', ')} missing from ${dir}. Run "${KUBE_BUILD_COMMAND}" (needs Go; builds etcd, kube-apiserver and kube-controller-manager from their Go modules, see docs/real-kubernetes.md)`,
    );
  }
  return {
    etcd: join(dir, 'etcd'),
    'kube-apiserver': join(dir, 'kube-apiserver'),
    'kube-controller-manager': join(dir, 'kube-controller-manager'),
  };
}

// Which API server the integration and e2e suites run against: the embedded one (default, `npm test`) or
// the real etcd + kube-apiserver + kube-controller-manager (`npm run test:real` sets
// MODELPLANE_TEST_BACKEND=real; see docs/real-kubernetes.md). Tests of embedded-only features say so with
// `embeddedOnly(reason)`, which skips them on the real backend with that reason.
export type TestBackend = 'embedded' | 'real';

export function testBackend(env: NodeJS.ProcessEnv = process.env): TestBackend {
  const value = env.MODELPLANE_TEST_BACKEND ?? 'embedded';
  if (value !== 'embedded' && value !== 'real')
    throw new Error(`MODELPLANE_TEST_BACKEND="${value}": use "embedded" or "real"`);
  return value;
}

/** node:test options that skip a test or suite on the real backend, saying why it cannot run there */
export function embeddedOnly(reason: string): { skip?: string } {
  return testBackend() === 'real' ? { skip: `embedded API server only: ${reason}` } : {};
}

/** node:test options that run a test only under `npm run test:real` */
export function realOnly(): { skip?: string } {
  return testBackend() === 'real' ? {} : { skip: 'real Kubernetes control plane only: runs under `npm run test:real`' };
}

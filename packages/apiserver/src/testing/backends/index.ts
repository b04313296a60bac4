// Backend selection for startTestCluster: one entry per backend name. Adding a backend = one module in this
// folder and one line here.
import { startEmbeddedBackend } from './embedded.ts';
import { startRealBackend } from './real.ts';
import type { StartBackend, TestBackendName } from './types.ts';

const BACKENDS: Record<TestBackendName, StartBackend> = {
  embedded: startEmbeddedBackend,
  real: startRealBackend,
};

/** the environment variable that switches whole suites between backends */
export const TEST_BACKEND_ENV = 'MODELPLANE_TEST_BACKEND';

/** the explicit choice, else $MODELPLANE_TEST_BACKEND, else embedded; an unknown name is an error naming the choices */
export function selectBackend(explicit?: TestBackendName): { name: TestBackendName; start: StartBackend } {
  const name = explicit ?? process.env[TEST_BACKEND_ENV] ?? 'embedded';
  if (!(name in BACKENDS)) {
    throw new Error(
      `unknown test backend "${name}" (from ${explicit ? 'startTestCluster({ backend })' : TEST_BACKEND_ENV}): use one of ${Object.keys(BACKENDS).join(', ')}`,
    );
  }
  return { name: name as TestBackendName, start: BACKENDS[name as TestBackendName] };
}

export type { BackendCluster, BackendOptions, StartBackend, TestBackendName } from './types.ts';

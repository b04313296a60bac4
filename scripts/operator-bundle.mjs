// The operator as the image runs it (scripts/build-image.mjs), built once for a whole test run and named to the
// tests by MODELPLANE_TEST_OPERATOR_BUNDLE: an operator process started from it loads one file instead of
// ~1,800 through tsx, about 2 CPU seconds less per start (docs/testing.md). test/helpers/operator-process.ts
// and test/deploy/image-entry.ts use it when it is set; without it they build or run from the sources.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BUNDLE_ENV = 'MODELPLANE_TEST_OPERATOR_BUNDLE';

/**
 * Builds the bundle into a temporary folder unless the environment names one already. Returns the variables
 * to pass to the tests and a cleanup; a failed build passes none (the tests run the sources, and the image
 * tests in test/deploy say what broke the build).
 */
export function buildOperatorBundle() {
  if (process.env[BUNDLE_ENV]) return { env: {}, remove() {} };
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-test-bundle-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const built = spawnSync(process.execPath, ['scripts/build-image.mjs', join(dir, 'dist')], { stdio: 'inherit' });
  if (built.status === 0) return { env: { [BUNDLE_ENV]: join(dir, 'dist', 'modelplane.mjs') }, remove };
  console.error('the operator bundle did not build: operator processes in tests run through tsx');
  remove();
  return { env: {}, remove() {} };
}

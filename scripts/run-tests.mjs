// Runs node:test over an explicit list of test files (Node 20's --test has no glob support).
// Default: every test/**/*.test.ts and packages/*/test/**/*.test.ts. `node scripts/run-tests.mjs FILE…` runs just those files.
// `--unit` runs the unit tier only: every test file that is not a cluster test (scripts/test-tiers.mjs).
// The files are compiled ahead into plain JavaScript (scripts/bundle-tests.mjs); MODELPLANE_TEST_FROM_SOURCES=1
// runs them through tsx instead. They run longest first, the files that mostly wait in a pool of their own
// (scripts/test-schedule.mjs), reported as one run with one summary (scripts/test-pools.mjs).
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { relative, resolve } from 'node:path';
import { bundleTests } from './bundle-tests.mjs';
import { buildOperatorBundle } from './operator-bundle.mjs';
import { npmTestPools } from './test-schedule.mjs';
import { allTestFiles, isClusterTest } from './test-tiers.mjs';

if (!process.argv.includes('--unit'))
  spawnSync(process.execPath, ['scripts/extract-kubectl.mjs'], { stdio: 'inherit' });

const argv = process.argv.slice(2);
const unitOnly = argv.includes('--unit');
const named = argv.filter((a) => !a.startsWith('--'));
// repo-relative, as scripts/test-costs.json names them
const files =
  named.length > 0
    ? named.map((f) => relative(process.cwd(), resolve(f)))
    : allTestFiles().filter((f) => !unitOnly || !isClusterTest(f));
// unit tests are pure and short: one file per core; cluster tests stay at two CPU-bound files at once, with
// the files that mostly wait beside them (scripts/test-schedule.mjs)
const pools = npmTestPools(files, { unitOnly, isCluster: isClusterTest, cores: availableParallelism() });
// compiled ahead (scripts/bundle-tests.mjs) unless MODELPLANE_TEST_FROM_SOURCES=1 asks for tsx
const fromSources = process.env.MODELPLANE_TEST_FROM_SOURCES === '1';
const sources = { compiled: files, remove() {} };
const compiled = fromSources
  ? sources
  : await bundleTests(files).catch((err) => {
      console.error(`run-tests: compiling the test files failed, running them through tsx: ${err.message}`);
      return sources;
    });
const compiledOf = new Map(files.map((f, i) => [f, compiled.compiled[i]]));
const loader = compiled === sources ? ['--import', 'tsx'] : [];
const poolArgs = pools.flatMap((p) => [`--pool=${p.concurrency}`, ...p.files.map((f) => compiledOf.get(f))]);
const args = [...loader, 'scripts/test-pools.mjs', ...poolArgs];

// cluster tests start operator processes: they run the image's bundle, built once for the whole run
const bundle = files.some(isClusterTest) ? buildOperatorBundle() : { env: {}, remove() {} };
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    MODELPLANE_LOG_LEVEL: process.env.MODELPLANE_LOG_LEVEL ?? 'silent',
    ...bundle.env,
  },
});
bundle.remove();
compiled.remove();
process.exit(result.status ?? 1);

// The test tiers (docs/testing.md). A unit test is pure: no API server, no listening socket, no child process,
// so `npm run test:unit` stays under a minute. A cluster test says so in its name (`*.integration.test.ts`) or
// its folder (test/e2e*, test/real*, test/browser). scripts/run-tests.mjs selects by these rules and
// test/tiers.test.ts checks that every unit-named file and the local modules it imports start nothing.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(relative(process.cwd(), p));
  }
  return out;
}

/** every file `npm test` runs: test/**\/*.test.ts and packages/*\/test/**\/*.test.ts, relative to the repo */
export function allTestFiles() {
  const packages = readdirSync('packages')
    .sort()
    .map((p) => join('packages', p, 'test'))
    .filter((d) => existsSync(d));
  return [...walk('test'), ...packages.flatMap(walk)];
}

/** a cluster test by its name or folder (the unit tier leaves it out) */
export function isClusterTest(file) {
  return /\.integration\.test\.ts$/.test(file) || /^test\/(e2e|real|browser)/.test(file);
}

/** what starts a cluster, a server or a process, as it appears in a test's source */
export const CLUSTER_MARKERS =
  /\b(startTestCluster|startApiServer|startCluster|startDevCluster|startOperator|startSim\w*|startInferenceServer|startWebhook\w*|runKubectl|requireKubectl|spawn(?:Sync)?|execFile(?:Sync)?|execSync|fork|createServer)\s*\(|\.listen\(|helpers\/dev-cluster|operator-process/;

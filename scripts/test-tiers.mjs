// The test tiers (docs/testing.md). A unit test is pure: no API server, no listening socket, no child process,
// so `npm run test:unit` stays under a minute. A cluster test says so in its name (`*.integration.test.ts`) or
// its folder (test/e2e*, test/real*, test/browser). scripts/run-tests.mjs selects by these rules and
// test/tiers.test.ts checks that every unit-named file and the local modules it imports start nothing.

/** a cluster test by its name or folder (the unit tier leaves it out) */
export function isClusterTest(file) {
  return /\.integration\.test\.ts$/.test(file) || /^test\/(e2e|real|browser)/.test(file);
}

/** what starts a cluster, a server or a process, as it appears in a test's source */
export const CLUSTER_MARKERS =
  /\b(startTestCluster|startApiServer|startCluster|startDevCluster|startOperator|startSim\w*|startInferenceServer|startWebhook\w*|runKubectl|requireKubectl|spawn(?:Sync)?|execFile(?:Sync)?|execSync|fork|createServer)\s*\(|\.listen\(|helpers\/dev-cluster|operator-process/;

// First meaningful paint of the dashboard's main page with 1,000 resources, measured in Chromium: the time
// from navigation start until the overview, filled from the first snapshot of the live stream, is on the
// screen (the `modelplane:overview-rendered` mark, taken after React committed every row and the next
// frame painted). Median of several cold page loads. Needs Debian's Chromium (scripts/setup-browser.sh).
//   npm run bench -- dashboard [resources]
import { spawnSync } from 'node:child_process';
import { startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import { allCrds } from '../src/cli/crds.ts';
import { ensureWebBuilt, startDashboard } from '../src/cli/dashboard/index.ts';
import { launchChromium } from '../test/browser/chromium.ts';
import { smokeOr } from './lib/smoke.ts';

const TOTAL = Number(process.argv[2] ?? smokeOr(1000, 40));
const RUNS = smokeOr(7, 2);
const log = new Logger({}, 'silent');

if (spawnSync('bash', ['scripts/setup-browser.sh'], { stdio: 'inherit' }).status !== 0) process.exit(1);
if (!ensureWebBuilt(log)) throw new Error('the dashboard front end is not built: npm run build:web');

const server = await startApiServer({ port: 0 });
const client = await KubeClient.create(server.kubeconfigYaml());
for (const crd of allCrds()) await ensureCrd(client, crd);
const admin = client.withFieldManager('bench');
for (const ns of ['team-a', 'team-b', 'team-c', 'team-d'])
  await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

const ready = (reason: string) => ({
  conditions: [
    { type: 'Ready', status: 'True', reason, message: 'ready', lastTransitionTime: new Date().toISOString() },
  ],
});
/** a mix of the primary kinds, each with a status, as a busy cluster would hold */
function resource(i: number): { obj: Record<string, unknown>; status: Record<string, unknown> } {
  const metadata = { name: `r-${String(i).padStart(4, '0')}`, namespace: `team-${'abcd'[i % 4]}` };
  if (i % 10 < 5) {
    return {
      obj: {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        metadata,
        spec: { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
      },
      status: {
        phase: 'Running',
        provider: { name: 'dynamo', selectedReason: 'matched capabilities' },
        ...ready('DeploymentReady'),
      },
    };
  }
  if (i % 10 < 8) {
    return {
      obj: {
        apiVersion: 'aim.eai.amd.com/v1alpha1',
        kind: 'AIMService',
        metadata,
        spec: { model: { name: 'qwen3-8b' } },
      },
      status: {
        status: 'Running',
        routing: { path: `/${metadata.namespace}/${metadata.name}` },
        ...ready('AllComponentsReady'),
      },
    };
  }
  return {
    obj: {
      apiVersion: 'llmd.ai/v1alpha1',
      kind: 'VariantAutoscaling',
      metadata,
      spec: { scaleTargetRef: { kind: 'Deployment', name: metadata.name }, modelID: 'qwen' },
    },
    status: {
      desiredOptimizedAlloc: { accelerator: 'H100', numReplicas: 1 + (i % 3) },
      ...ready('OptimizationSucceeded'),
    },
  };
}

const started = performance.now();
for (let i = 0; i < TOTAL; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, TOTAL - i) }, async (_, j) => {
      const { obj, status } = resource(i + j);
      const created = await admin.create(obj as never);
      await admin.updateStatus({ ...(created as object), status } as never);
    }),
  );
}
const seedMs = performance.now() - started;

const dashboard = await startDashboard({ client, cluster: server.url, user: 'bench', logger: log });
const browser = await launchChromium();
const paints: number[] = [];
const fcps: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.context.newPage();
    await page.goto(dashboard.url);
    await page.waitForSelector('body[data-overview-rendered]', { timeout: 30_000 });
    // every resource is counted on the page (each kind's heading says ready/total; long tables show a page first)
    const totals = (await page.locator('section.kind h2 .count').allTextContents()).map((t) =>
      Number(/\/(\d+)/.exec(t)?.[1] ?? 0),
    );
    const counted = totals.reduce((a, b) => a + b, 0);
    if (counted !== TOTAL) throw new Error(`the overview counts ${counted} resources, expected ${TOTAL}`);
    const t = await page.evaluate(() => {
      const perf = (
        globalThis as unknown as {
          performance: {
            getEntriesByName(n: string): Array<{ startTime: number }>;
            getEntriesByType(t: string): Array<{ name: string; startTime: number }>;
          };
        }
      ).performance;
      return {
        painted:
          perf.getEntriesByName('modelplane:overview-painted')[0]?.startTime ??
          perf.getEntriesByName('modelplane:overview-rendered')[0]!.startTime,
        fcp: perf.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint')?.startTime ?? Number.NaN,
      };
    });
    // the first load also warms Chromium's caches; it is reported but not counted
    if (run > 0) {
      paints.push(t.painted);
      fcps.push(t.fcp);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await dashboard.close();
  client.close();
  await server.close();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `runs (ms): ${paints.map((p) => p.toFixed(0)).join(', ')}; seeding ${TOTAL} objects took ${(seedMs / 1000).toFixed(1)} s`,
);
console.log(
  `dashboard: ${median(paints).toFixed(0)} ms (resources=${TOTAL}, first-contentful-paint=${median(fcps).toFixed(0)} ms, max=${Math.max(...paints).toFixed(0)} ms, runs=${paints.length})`,
);
process.exit(0);

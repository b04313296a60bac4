// The dashboard in a real browser (Debian's Chromium through playwright-core; `npm run test:browser`): the
// overview loads, a kubectl change appears without a reload, each kind's page shows its panel, the create
// form shows the webhook's messages for invalid input and creates valid input, the autoscaler chart draws,
// no secret value reaches the page, and axe finds no serious accessibility violation. Screenshots of every
// page go to test-artifacts/browser/ (and to docs/images/ with MODELPLANE_UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ENGINE_REQUIRES_GPU, NAME_WITH_DOTS } from '../../src/controllers/kubeairunway/validation/index.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Browser, launchChromium } from './chromium.ts';
import { startWorld, type World } from './fixture.ts';
import { seriousViolations, shot } from './page-checks.ts';

const SECRET_VALUE = 'tops3cret-value-that-must-never-show';

/**
 * The values a uPlot chart plots for each named series, in x order: the cursor sweeps the plot area left to
 * right and the legend's value cells are read at each step (consecutive repeats collapsed).
 */
async function plottedSeries(page: Page, chart: string, labels: string[]): Promise<Record<string, string[]>> {
  const figure = page.locator(`figure[data-chart="${chart}"]`);
  const box = await figure.locator('.u-over').boundingBox();
  assert.ok(box && box.width > 200 && box.height > 100, `${chart} chart drawn: ${JSON.stringify(box)}`);
  const out: Record<string, string[]> = Object.fromEntries(labels.map((l) => [l, []]));
  for (let i = 0; i <= 60; i++) {
    await page.mouse.move(box.x + 1 + ((box.width - 2) * i) / 60, box.y + box.height / 2);
    const rows = await figure
      .locator('.u-legend tr.u-series')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('.u-label')?.textContent ?? '',
          tr.querySelector('.u-value')?.textContent ?? '',
        ]),
      );
    for (const [label, value] of rows)
      if (label && label in out && value && value !== '-' && value !== '--' && out[label]!.at(-1) !== value)
        out[label]!.push(value);
  }
  await page.mouse.move(0, 0);
  return out;
}

/** `expected` appears in `seen` in this order (other values may come between) */
function assertInOrder(seen: string[], expected: string[], what: string): void {
  let at = 0;
  for (const v of seen) if (v === expected[at]) at++;
  assert.equal(
    at,
    expected.length,
    `${what}: expected ${expected.join(' → ')} in order, the chart shows ${seen.join(' → ')}`,
  );
}

async function openResource(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}#/r/${encodeURIComponent(key)}`);
  await page.waitForSelector(`article.detail[data-key="${key}"]`);
}

describe('dashboard in Chromium', { timeout: 360_000 }, () => {
  let world: World;
  let browser: Browser;
  let page: Page;
  let url: string;

  before(async () => {
    world = await startWorld();
    url = world.dashboard.url;
    browser = await launchChromium();
    page = await browser.context.newPage();
    // every quickstart ModelDeployment Running before the pages are read (a loaded machine takes a while); a
    // timeout names the ones that are not, instead of letting a page check fail later for the same reason
    const notReady = () =>
      world.dashboard.state
        .summaries()
        .filter((s) => s.kind === 'ModelDeployment' && !s.ready)
        .map((s) => `${s.name}: ${s.state} ${s.reason}`);
    await waitFor(
      'every quickstart ModelDeployment Ready on the dashboard',
      () => world.dashboard.state.summaries().some((s) => s.kind === 'ModelDeployment') && notReady().length === 0,
      { timeoutMs: 180_000, detail: notReady },
    );
  });
  after(async () => {
    await browser?.close();
    await world?.stop();
  });

  it('loads the overview: every quickstart resource, grouped by kind, primary kinds first', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-overview-rendered]');
    await page.waitForSelector('tr[data-key="kubeairunway.ai/ModelDeployment/quickstart/gemma-cpu"]');
    const headings = await page.locator('section.kind h2').allTextContents();
    assert.match(headings[0]!, /^ModelDeployment/);
    assert.ok(headings.some((h) => h.startsWith('AIMService')));
    await page.waitForSelector(
      'tr[data-key="kubeairunway.ai/ModelDeployment/quickstart/qwen-2gpu"] >> text=provider kuberay',
    );
    await shot(page, 'overview');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('shows a kubectl change live, without a reload', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-overview-rendered]');
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));
    const md = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'live-md', namespace: 'quickstart' },
      spec: { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
    };
    const r = await world.kubectl(['apply', '-f', '-'], JSON.stringify(md));
    assert.equal(r.code, 0, r.stderr);
    await page.waitForSelector('tr[data-key="kubeairunway.ai/ModelDeployment/quickstart/live-md"]', {
      timeout: 20_000,
    });
    await page.waitForSelector('tr[data-key="kubeairunway.ai/ModelDeployment/quickstart/live-md"] >> text=provider', {
      timeout: 30_000,
    });
    const del = await world.kubectl(['delete', 'md', 'live-md', '-n', 'quickstart', '--wait=false']);
    assert.equal(del.code, 0, del.stderr);
    await page.waitForSelector('tr[data-key="kubeairunway.ai/ModelDeployment/quickstart/live-md"]', {
      state: 'detached',
      timeout: 30_000,
    });
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker),
      42,
      'the same page, never reloaded',
    );
  });

  it('a ModelDeployment page explains the provider choice', async () => {
    await openResource(page, url, 'kubeairunway.ai/ModelDeployment/quickstart/gemma-cpu');
    const panel = page.locator('section[aria-labelledby="h-selection"]');
    await panel.locator('tr.chosen >> text=kaito').waitFor();
    assert.match((await panel.textContent()) ?? '', /spec\.engine\.type == 'llamacpp'.*priority 100: true/s);
    await page.locator('section[aria-labelledby="h-children"] >> text=Workspace').waitFor();
    await shot(page, 'modeldeployment');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('an AIMService page shows the route and how it was rendered', async () => {
    await openResource(page, url, 'aim.eai.amd.com/AIMService/quickstart/qwen-chat');
    // first, why it is (not) Running, in the words of `modelplane explain aimsvc/qwen-chat`
    const why = page.locator('section[aria-labelledby="h-explain"] p');
    await why.waitFor();
    assert.match(
      (await why.textContent()) ?? '',
      /^AIMService quickstart\/qwen-chat is (Running: every link|\w+\. Walking)/,
    );
    const panel = page.locator('section[aria-labelledby="h-route"]');
    await panel.locator('text="/quickstart/chatbot/qwen-chat"').first().waitFor();
    const text = (await panel.textContent()) ?? '';
    assert.match(text, /Placeholders/);
    assert.match(text, /\{\.metadata\.name\}\s*qwen-chat/);
    // the model chain it resolved, each link to its own page
    const chain = page.locator('section[aria-labelledby="h-chain"]');
    await chain.locator('a >> text=qwen3-8b').first().waitFor();
    assert.match((await chain.textContent()) ?? '', /Runtime config.*AIMRuntimeConfig.*default/s);
    await shot(page, 'aimservice');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it("the create form shows the webhook's messages for invalid input, then creates valid input", async () => {
    await page.goto(`${url}#/create`);
    await page.fill('#md-name', 'bad.name');
    await page.fill('#md-model', 'Qwen/Qwen3-0.6B');
    await page.fill('#md-gpus', '0');
    await page.fill('#md-namespace', 'quickstart');
    await page.waitForSelector('#validation-summary[data-state="invalid"]');
    const summary = (await page.locator('#validation-summary').textContent()) ?? '';
    assert.ok(summary.includes(NAME_WITH_DOTS), summary);
    assert.ok(summary.includes(ENGINE_REQUIRES_GPU.vllm!), summary);
    assert.ok(await page.locator('button[type="submit"]').isDisabled());
    await shot(page, 'create-invalid');
    assert.deepEqual(await seriousViolations(page), []);

    await page.fill('#md-name', 'from-the-form');
    await page.fill('#md-gpus', '1');
    await page.waitForSelector('#validation-summary[data-state="valid"]');
    await page.locator('button[type="submit"]').click();
    await page.waitForSelector('article.detail[data-key="kubeairunway.ai/ModelDeployment/quickstart/from-the-form"]');
    const got = await world.kubectl([
      'get',
      'md',
      'from-the-form',
      '-n',
      'quickstart',
      '-o',
      'jsonpath={.spec.engine.type}',
    ]);
    assert.equal(got.stdout, 'vllm');
  });

  it("the autoscaler chart draws the autoscaler's decisions: replicas, KV-cache use and queue over time", async () => {
    const setup = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'workload-variant-autoscaler-system' } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'saturation-scaling-config', namespace: 'workload-variant-autoscaler-system' },
        data: {
          default: 'kvCacheThreshold: 0.80\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n',
        },
      },
      {
        apiVersion: 'llmd.ai/v1alpha1',
        kind: 'VariantAutoscaling',
        metadata: {
          name: 'hello-web',
          namespace: 'quickstart',
          labels: { 'inference.optimization/acceleratorName': 'H100' },
        },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'hello-web' }, modelID: 'hello', maxReplicas: 4 },
      },
    ];
    for (const obj of setup)
      assert.equal((await world.kubectl(['apply', '-f', '-'], JSON.stringify(obj))).code, 0, JSON.stringify(obj));
    const pods = (
      await world.kubectl([
        'get',
        'pods',
        '-n',
        'quickstart',
        '-l',
        'app.kubernetes.io/name=hello-web',
        '-o',
        'jsonpath={.items[*].metadata.name}',
      ])
    ).stdout
      .split(' ')
      .filter(Boolean);
    assert.ok(pods.length > 0, 'hello-web has pods');
    await openResource(page, url, 'llmd.ai/VariantAutoscaling/quickstart/hello-web');
    // three cycles: saturated (scale up), saturated, then quiet
    for (const [kv, queue] of [
      [0.9, 6],
      [0.85, 4],
      [0.3, 0],
    ] as const) {
      // decisions are stamped to the second: space the cycles so each is its own point in time
      await new Promise((r) => setTimeout(r, 1100));
      world.metrics.load = new Map(pods.map((p) => [p, { kvCacheUsage: kv, queueLength: queue }]));
      await world.autoscaler().engine.runCycle();
      await page.waitForSelector(
        `section[aria-labelledby="h-autoscaler"] >> text=/KV-cache ${Math.round(kv * 100)}%, queue ${queue}/`,
        { timeout: 20_000 },
      );
    }
    const text = (await page.locator('section[aria-labelledby="h-autoscaler"]').textContent()) ?? '';
    assert.match(text, /decision history/);
    // the points the charts plot, read back through uPlot's legend while the cursor sweeps each chart
    const load = await plottedSeries(page, 'Load', ['KV-cache use %', 'queue length']);
    assertInOrder(load['KV-cache use %']!, ['90', '85', '30'], 'KV-cache use plotted');
    assertInOrder(load['queue length']!, ['6', '4', '0'], 'queue length plotted');
    const replicas = await plottedSeries(page, 'Replicas', ['desired replicas']);
    const desired = world
      .autoscaler()
      .decisions.history('quickstart', 'hello-web')
      .map((d) => String(d.desired))
      .filter((v, i, all) => v !== all[i - 1]);
    assert.ok(desired.length >= 1, 'the autoscaler decided');
    assertInOrder(replicas['desired replicas']!, desired, 'desired replicas plotted');
    const rows = await page.locator('section[aria-labelledby="h-autoscaler"] table.latest tbody tr').count();
    assert.ok(rows >= 3, `${rows} decisions listed`);
    await shot(page, 'variantautoscaling');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('a LlamaStackDistribution page shows the generated config, secrets as references only', async () => {
    assert.equal((await world.kubectl(['create', 'namespace', 'llama'])).code, 0);
    const r = await world.kubectl(['apply', '-f', resolve('examples/llamastack/full-v1alpha2.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    await openResource(page, url, 'llamastack.io/LlamaStackDistribution/llama/full');
    const panel = page.locator('section.panel >> text=Generated config').first();
    await panel.waitFor({ timeout: 30_000 });
    const text = (await page.locator('section.panel').first().textContent()) ?? '';
    assert.match(text, /LLSD_VLLM_PRIMARY_API_KEY/, 'the secret is referenced by its environment variable');
    const html = await page.content();
    for (const value of ['not-a-real-token', 'not-a-real-key', 'not-a-real-password', 'llama:pw@'])
      assert.ok(!html.includes(value), `${value} reached the page`);
    await shot(page, 'llamastackdistribution');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('never sends a secret value to the browser', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hf', namespace: 'quickstart' },
      stringData: { HF_TOKEN: SECRET_VALUE },
    };
    assert.equal((await world.kubectl(['apply', '-f', '-'], JSON.stringify(secret))).code, 0);
    const md = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'gated', namespace: 'quickstart' },
      spec: {
        model: { id: 'meta-llama/Llama-3.1-8B' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1 } },
        secrets: { huggingFaceToken: 'hf' },
      },
    };
    assert.equal((await world.kubectl(['apply', '-f', '-'], JSON.stringify(md))).code, 0);
    const bodies: string[] = [];
    page.on('response', async (res) => {
      if (!res.url().includes('/api/stream')) bodies.push(await res.text().catch(() => ''));
    });
    await openResource(page, url, 'kubeairunway.ai/ModelDeployment/quickstart/gated');
    await page.locator('section[aria-labelledby="h-children"]').waitFor();
    await page.locator('summary >> text=Show the object').click();
    const html = await page.content();
    assert.ok(html.includes('huggingFaceToken: hf'), 'the reference is shown (the stored object as YAML)');
    assert.ok(!html.includes(SECRET_VALUE) && !bodies.some((b) => b.includes(SECRET_VALUE)), 'the value is not');
    const api = await page.evaluate(async () => (await fetch('/api/resources')).text());
    assert.ok(!api.includes(SECRET_VALUE));
  });
});

// The dashboard's drill-down, try-it and autoscaler showcase in a real browser (Debian's Chromium through
// playwright-core; `npm run test:browser`), on `modelplane dev` as `npm start` runs it: every controller, the
// simulated Prometheus, the autoscaler on its own loop, the quickstart applied. A person drills from the
// overview to a pod's log, chats with a model through the Gateway, and presses "send load" to watch the
// replicas go up. Values are checked, not element sizes; axe finds no serious violation on these pages.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { Page } from 'playwright-core';
import { type Dashboard, ensureWebBuilt, startDashboard } from '../../src/cli/dashboard/index.ts';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { devLoadRunner } from '../../src/cli/dev/load-runner.ts';
import { type Autoscaler, autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../src/controllers/sets.ts';
import { type Browser, launchChromium } from './chromium.ts';
import { ARTIFACTS, applyQuickstart } from './fixture.ts';
import { seriousViolations, shot } from './page-checks.ts';

const MD = 'kubeairunway.ai/ModelDeployment/quickstart/qwen-llmd';
const VA = 'llmd.ai/VariantAutoscaling/quickstart/qwen-autoscaled';
const AIM_SVC = 'aim.eai.amd.com/AIMService/quickstart/qwen-chat';

/** sends one message from the page's chat box: the simulated model's answer and the latency it shows */
async function chatOnce(page: Page, message: string): Promise<void> {
  assert.equal(await page.locator('.chat-reply .answer').count(), 0, 'no answer before this message');
  await page.fill('#chat-message', message);
  await page.click('form.chat button[type="submit"]');
  const answer = page.locator('.chat-reply .answer');
  await answer.waitFor({ timeout: 60_000 });
  assert.match((await answer.textContent()) ?? '', /simulated tokens/, 'the simulated model answered');
  const latency = Number(await answer.getAttribute('data-latency-ms'));
  assert.ok(latency > 0 && latency < 60_000, `latency ${latency} ms`);
  assert.match((await page.locator('.chat-reply .note').textContent()) ?? '', new RegExp(`Answered in ${latency} ms`));
  assert.equal(await page.locator('.chat-reply .error').count(), 0, 'no error beside the answer');
}

describe('drill-down, try-it and send load in Chromium', { timeout: 360_000 }, () => {
  let cluster: DevCluster;
  let client: KubeClient;
  let dashboard: Dashboard;
  let browser: Browser;
  let page: Page;
  let autoscaler: Autoscaler | undefined;
  const before_ = { prometheus: process.env.MODELPLANE_PROMETHEUS, url: process.env.PROMETHEUS_BASE_URL };

  before(async () => {
    const log = new Logger({}, 'silent');
    assert.ok(ensureWebBuilt(log), 'the dashboard front end is built');
    mkdirSync(ARTIFACTS, { recursive: true });
    // npm start's metrics without a prometheus binary: the simulated Prometheus, whatever is installed
    process.env.MODELPLANE_PROMETHEUS = 'simulated';
    delete process.env.PROMETHEUS_BASE_URL;
    const sets = [...CONTROLLER_SETS, ...PROVIDER_SETS].map((s) =>
      s.name === 'autoscaler' ? autoscalerControllerSet({}, (a) => (autoscaler = a)) : s,
    );
    cluster = await startDevCluster({ port: 0, log, sets, prometheus: true });
    client = await KubeClient.create(cluster.server.kubeconfigYaml());
    // a faster cycle than dev's 5 s, so the test watches the decisions come in
    await client.withFieldManager('test').apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'workload-variant-autoscaler-variantautoscaling-config',
        namespace: 'workload-variant-autoscaler-system',
      },
      data: { GLOBAL_OPT_INTERVAL: '2s' },
    } as never);
    await applyQuickstart(cluster, log);
    const feed = (namespace: string, name: string) => autoscaler?.decisions.history(namespace, name) ?? [];
    dashboard = await startDashboard({
      client,
      cluster: cluster.server.url,
      user: 'admin',
      logger: log,
      feed,
      load: devLoadRunner(client, log),
    });
    browser = await launchChromium({ width: 1400, height: 1000 });
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await dashboard?.close();
    client?.close();
    await cluster?.stop();
    for (const [k, v] of [
      ['MODELPLANE_PROMETHEUS', before_.prometheus],
      ['PROMETHEUS_BASE_URL', before_.url],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  it("drills from the overview to a pod's log: ModelDeployment → Deployment → Pod → log lines", async () => {
    await page.goto(dashboard.url);
    await page.waitForSelector(`tr[data-key="${MD}"]`, { timeout: 120_000 });
    await page.selectOption('#namespace', 'quickstart');
    await page.click(`tr[data-key="${MD}"] a`);
    await page.waitForSelector(`article.detail[data-key="${MD}"]`);
    // the child Deployment links to its own page
    await page.click('section[aria-labelledby="h-children"] tr[data-kind="Deployment"] a', { timeout: 60_000 });
    await page.waitForSelector('article.detail[data-key="apps/Deployment/quickstart/qwen-llmd"]');
    const pod = page.locator('table.pods tbody tr').first();
    await pod.waitFor({ timeout: 60_000 });
    const cells = await pod.locator('td').allTextContents();
    assert.match(cells[0]!, /^qwen-llmd-/, `the pod's name: ${cells}`);
    assert.match(cells[3]!, /^nvidia-node-\d$/, `the node it runs on: ${cells}`);
    assert.equal(cells[4], '0', 'no restarts');
    await pod.locator('a').click();
    await page.waitForSelector('article.detail[data-key^="/Pod/quickstart/qwen-llmd-"]');
    await page.waitForSelector('pre.logs >> text=/vLLM API server version/', { timeout: 30_000 });
    const log = (await page.locator('pre.logs').textContent()) ?? '';
    assert.match(log, /model='Qwen\/Qwen2.5-0.5B-Instruct'/, 'the log of this pod, not a placeholder');
    assert.equal(await page.locator('pre.logs').getAttribute('data-log-container'), 'vllm');
    await shot(page, 'pod-logs');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('chats with the model through the Gateway: the answer and its latency', async () => {
    await page.goto(`${dashboard.url}#/r/${encodeURIComponent(MD)}`);
    await page.waitForSelector('section[aria-labelledby="h-try"] tr[data-via="gateway"]', { timeout: 60_000 });
    const curl = (await page.locator('tr[data-via="gateway"] pre.curl').textContent()) ?? '';
    assert.match(curl, /^curl -sS 'http:\/\/[\d.]+(:\d+)?\/v1\/chat\/completions'/);
    assert.match(curl, /"model":"Qwen\/Qwen2.5-0.5B-Instruct"/);
    await chatOnce(page, 'Say hello to the browser test');
    await shot(page, 'try-it');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it("chats with the quickstart's AIMService through its route on the Gateway: the answer and its latency", async () => {
    await page.goto(`${dashboard.url}#/r/${encodeURIComponent(AIM_SVC)}`);
    await page.waitForSelector(`article.detail[data-key="${AIM_SVC}"]`);
    await page.waitForSelector('section[aria-labelledby="h-try"] tr[data-via="gateway"]', { timeout: 120_000 });
    const curl = (await page.locator('tr[data-via="gateway"] pre.curl').textContent()) ?? '';
    // the route's prefix on the Gateway's address, and the model the AIM image serves
    assert.match(curl, /^curl -sS 'http:\/\/[\d.]+(:\d+)?\/quickstart\/chatbot\/qwen-chat\/v1\/chat\/completions'/);
    assert.match(curl, /"model":"Qwen\/Qwen3-8B"/);
    const direct = (await page.locator('tr[data-via="direct"] pre.curl').textContent()) ?? '';
    assert.match(
      direct,
      /^curl -sS 'http:\/\/qwen-chat-predictor\.quickstart\.svc\.cluster\.local\/v1\/chat\/completions'/,
    );
    assert.equal(await page.locator('form.chat label').textContent(), 'Message to Qwen/Qwen3-8B');
    await chatOnce(page, 'Say hello to the AIM test');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('"send load" scales the quickstart variant up: the chart gets new points and desired rises', async () => {
    await page.goto(`${dashboard.url}#/r/${encodeURIComponent(VA)}`);
    const replicas = page.locator('figure[data-chart="Replicas"]');
    await replicas.waitFor({ timeout: 120_000 });
    const pointsBefore = Number(await replicas.getAttribute('data-points'));
    await page.click('button:text("Send load for a minute")');
    await page.waitForSelector('p.load >> text=/Sending load until/', { timeout: 10_000 });
    assert.equal(await page.locator('button:text("Send load for a minute")').isDisabled(), true, 'one load at a time');
    // the autoscaler sees the queue grow and asks for more replicas; the decision is marked with its reason
    await page.waitForSelector('ul.decisions >> text=/ScaleUp: desired replicas 1 → 2/', { timeout: 120_000 });
    const pointsAfter = Number(await replicas.getAttribute('data-points'));
    assert.ok(pointsAfter > pointsBefore, `the chart moved: ${pointsBefore} → ${pointsAfter} points`);
    const label = (await replicas.locator('[role="img"]').getAttribute('aria-label')) ?? '';
    assert.match(label, /desired replicas [2-4]/, label);
    const summary = (await page.locator('section[aria-labelledby="h-autoscaler"] > p').first().textContent()) ?? '';
    assert.match(summary, /Thresholds: KV-cache 80%, queue 5/);
    assert.doesNotMatch(summary, /\d\.\d{2,}/, `numbers for people: ${summary}`);
    await shot(page, 'variantautoscaling-load');
    assert.deepEqual(await seriousViolations(page), []);
  });

  it("the models catalog: a template's GPU fit per node, and Deploy prefills the create form", async () => {
    await page.goto(`${dashboard.url}#/models`);
    const qwen = page.locator('section[data-model="qwen3-8b"]');
    await qwen.waitFor({ timeout: 60_000 });
    const row = qwen.locator('tr[data-template="qwen3-8b-1x-mi300x-lat-fp16-37bb"] td');
    await row.first().waitFor();
    const cells = await row.allTextContents();
    assert.equal(cells[1], '1 x MI300X');
    assert.equal(cells[3], 'amd-node-1, amd-node-2', 'the MI300X nodes, not the NVIDIA or CPU ones');
    await qwen.locator('tr[data-template="qwen3-8b-1x-mi300x-lat-fp16-37bb"] a:text-is("Deploy")').click();
    await page.waitForSelector('#md-model');
    assert.equal(await page.inputValue('#md-model'), 'Qwen/Qwen3-8B');
    assert.equal(await page.inputValue('#md-name'), 'qwen3-8b');
    assert.equal(await page.inputValue('#md-namespace'), 'quickstart');
    assert.equal(await page.inputValue('#md-gpus'), '1');
    await page.waitForSelector('#md-provider option[value="aim"]', { state: 'attached' });
    assert.equal(await page.locator('#md-provider').inputValue(), 'aim');
    assert.equal(await page.locator('#md-gputype').inputValue(), 'amd.com/gpu');
    await shot(page, 'catalog-deploy');
    assert.deepEqual(await seriousViolations(page), []);
  });
});

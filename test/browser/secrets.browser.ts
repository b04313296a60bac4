// No secret value reaches a browser or a log (docs/security.md): a canary Secret is put in the cluster and
// the controllers are made to reference it (a ModelDeployment's Hugging Face token, a Llama Stack
// provider's API key, a pod env entry); then every JSON and Server-Sent-Event response the dashboard can send
// is read — /api/info, /api/resources, /api/providers, every resource and child page and its live stream,
// the overview stream, every pod's log stream — and every page is opened in Chromium, and none may contain
// the canary, in plain text or base64. The process's log lines (every level) are checked the same way.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { keyOf } from '../../src/cli/dashboard/state.ts';
import { type Browser, launchChromium } from './chromium.ts';
import { startWorld, type World } from './fixture.ts';

const CANARY = 'canary-3f9d2c7e-never-in-a-browser';
const FORMS = [CANARY, Buffer.from(CANARY).toString('base64'), Buffer.from(CANARY).toString('base64url')];
const leaked = (text: string) => FORMS.find((f) => text.includes(f));

/** what the dashboard sends on `path` within `ms` (a stream is read for that long, then closed) */
function readFor(base: string, path: string, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    const req = request(`${base}${path.replace(/^\//, '')}`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
      res.on('close', () => resolve(body));
    });
    req.on('error', () => resolve(body));
    setTimeout(() => {
      req.destroy();
      resolve(body);
    }, ms);
    req.end();
  });
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('no secret reaches the browser or a log', { timeout: 300_000 }, () => {
  let world: World;
  let browser: Browser;
  const logLines: string[] = [];

  before(async () => {
    world = await startWorld({ log: new Logger({}, 'debug', { write: (line) => void logLines.push(line) }) });
    browser = await launchChromium();
    const objects = [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'canary', namespace: 'quickstart' },
        stringData: { token: CANARY, HF_TOKEN: CANARY },
      },
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        metadata: { name: 'canary-md', namespace: 'quickstart' },
        spec: {
          model: { id: 'meta-llama/Llama-3.1-8B' },
          engine: { type: 'vllm' },
          resources: { gpu: { count: 1 } },
          secrets: { huggingFaceToken: 'canary' },
        },
      },
      {
        apiVersion: 'llamastack.io/v1alpha2',
        kind: 'LlamaStackDistribution',
        metadata: { name: 'canary-llsd', namespace: 'quickstart' },
        spec: {
          distribution: { name: 'starter' },
          providers: {
            inference: [
              {
                id: 'vllm-canary',
                provider: 'vllm',
                endpoint: 'http://vllm:8000/v1',
                apiKey: { name: 'canary', key: 'token' },
              },
            ],
          },
          resources: { models: [{ name: 'meta-llama/Llama-3.1-8B-Instruct', provider: 'vllm-canary' }] },
        },
      },
    ];
    for (const o of objects) {
      const r = await world.kubectl(['apply', '-f', '-'], JSON.stringify(o));
      assert.equal(r.code, 0, r.stderr);
    }
    // the controllers act on them: a provider resource for the ModelDeployment, a Deployment for the stack
    const state = world.dashboard.state;
    for (let i = 0; i < 600; i++) {
      const md = state.find('kubeairunway.ai/ModelDeployment/quickstart/canary-md') as
        | { status?: { provider?: unknown } }
        | undefined;
      const llsd = state.ofKind('Deployment', 'apps').some((d) => d.metadata.name === 'canary-llsd');
      if (md?.status?.provider && llsd) break;
      await wait(100);
    }
  });
  after(async () => {
    await browser?.close();
    await world?.stop();
  });

  it('no JSON or SSE response of the dashboard carries the canary', async () => {
    const base = world.dashboard.url;
    const state = world.dashboard.state;
    const keys = new Set<string>();
    for (const role of ['resource', 'child', 'events'] as const)
      for (const o of state.objects(role)) keys.add(keyOf(o));
    assert.ok(keys.has('kubeairunway.ai/ModelDeployment/quickstart/canary-md'), 'the ModelDeployment is visible');
    assert.ok(keys.has('llamastack.io/LlamaStackDistribution/quickstart/canary-llsd'));
    const pods = [...keys].filter((k) => k.split('/')[1] === 'Pod');
    const paths = [
      '/api/info',
      '/api/resources',
      '/api/providers',
      '/api/stream',
      ...[...keys].flatMap((k) => [
        `/api/resource?key=${encodeURIComponent(k)}`,
        `/api/stream/resource?key=${encodeURIComponent(k)}`,
      ]),
      ...pods.map((k) => `/api/stream/logs?key=${encodeURIComponent(k)}`),
    ];
    const found: string[] = [];
    let read = 0;
    // a few at a time: each stream is read for 1.5 s
    for (let i = 0; i < paths.length; i += 16) {
      const bodies = await Promise.all(
        paths.slice(i, i + 16).map(async (p) => [p, await readFor(base, p, 1_500)] as const),
      );
      for (const [p, body] of bodies) {
        read += body.length;
        if (leaked(body)) found.push(p);
      }
    }
    assert.ok(read > 10_000, `only ${read} bytes read from ${paths.length} responses`);
    assert.deepEqual(found, [], 'responses carrying the canary');
    // the references are there: a person needs to see which Secret is used
    const md = await readFor(
      base,
      `/api/resource?key=${encodeURIComponent('kubeairunway.ai/ModelDeployment/quickstart/canary-md')}`,
      5_000,
    );
    assert.match(md, /"huggingFaceToken":"canary"/);
  });

  it('no page the browser opens shows the canary, and no request it makes returns it', async () => {
    const page = await browser.context.newPage();
    const seen: string[] = [];
    page.on('response', async (res) => {
      if (res.url().includes('/api/stream')) return; // streams never end; they were read above
      const body = await res.text().catch(() => '');
      if (leaked(body)) seen.push(res.url());
    });
    for (const key of [
      'kubeairunway.ai/ModelDeployment/quickstart/canary-md',
      'llamastack.io/LlamaStackDistribution/quickstart/canary-llsd',
    ]) {
      await page.goto(`${world.dashboard.url}#/r/${encodeURIComponent(key)}`);
      await page.waitForSelector(`article.detail[data-key="${key}"]`);
      await page
        .locator('summary >> text=Show the object')
        .first()
        .click()
        .catch(() => undefined);
      await wait(1_000);
      assert.equal(leaked(await page.content()), undefined, `${key}: the canary is on the page`);
    }
    await page.goto(world.dashboard.url);
    await page.waitForSelector('body[data-overview-rendered]');
    assert.equal(leaked(await page.content()), undefined);
    assert.deepEqual(seen, []);
    await page.close();
  });

  it('no log line of the controllers, simulators or dashboard carries the canary', () => {
    assert.ok(logLines.length > 100, `${logLines.length} log lines captured`);
    assert.deepEqual(
      logLines.filter((l) => leaked(l)).map((l) => l.slice(0, 300)),
      [],
    );
  });
});

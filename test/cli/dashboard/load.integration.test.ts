// The "send load" button's endpoint: the server picks the variant from the key alone (the body is never
// read), refuses anything that is not a visible VariantAutoscaling, a second load on the same variant and
// foreign origins; dev's runner finds the Service that selects the variant's pods.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type Dashboard, LoadRefusal, type LoadRunner, startDashboard } from '../../../src/cli/dashboard/index.ts';
import type { ResourceDetail } from '../../../src/cli/dashboard/types.ts';
import { variantService } from '../../../src/cli/dev/load-runner.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const log = new Logger({}, 'silent');
const NS = 'team-a';
const KEY = `llmd.ai/VariantAutoscaling/${NS}/v1`;

const deployment = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'vllm/vllm-openai:v0.10.1' }] } },
  },
});
const service = (name: string, selector: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: NS },
  spec: { selector, ports: [{ port: 8000 }] },
});

describe('send load', () => {
  let cluster: DevTestCluster;
  let dashboard: Dashboard;
  let client: KubeClient;
  let staticDir: string;
  const started: Array<{ key: string; name: string | undefined }> = [];
  const running = new Map<string, number>();
  const runner: LoadRunner = {
    runningUntil: (key) => running.get(key),
    async start(va, key) {
      if (running.has(key)) throw new LoadRefusal(409, `a load on ${key} is already running`);
      started.push({ key, name: va.metadata.name });
      running.set(key, 1_000);
      return { until: 1_000 };
    },
  };
  const post = (key: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${dashboard.url}api/load?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...init.headers },
      body: init.body ?? '{}',
    });

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: [NS] });
    staticDir = mkdtempSync(join(tmpdir(), 'modelplane-web-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    await cluster.admin.create(deployment('d', { app: 'd', tier: 'x' }) as KubeObject);
    await cluster.admin.create(service('other', { app: 'other' }) as KubeObject);
    await cluster.admin.create(service('s', { app: 'd' }) as KubeObject);
    await cluster.admin.create({
      apiVersion: 'llmd.ai/v1alpha1',
      kind: 'VariantAutoscaling',
      metadata: { name: 'v1', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' },
        modelID: 'm',
        variantCost: '1',
        minReplicas: 1,
        maxReplicas: 2,
      },
    } as KubeObject);
    client = await KubeClient.create(cluster.dev.server.kubeconfigYaml());
    dashboard = await startDashboard({ client, cluster: 'test', user: 'admin', logger: log, staticDir, load: runner });
    await waitFor('the variant visible', async () => (dashboard.state.find(KEY) ? true : undefined));
  });
  after(async () => {
    await dashboard?.close();
    client?.close();
    await cluster?.stop();
    rmSync(staticDir, { recursive: true, force: true });
  });

  it('starts a load on the variant the key names; the body says nothing', async () => {
    const r = await post(KEY, { body: JSON.stringify({ service: 'evil', durationMs: 1e12, concurrency: 1e6 }) });
    assert.equal(r.status, 202);
    assert.deepEqual(await r.json(), { until: 1_000 });
    assert.deepEqual(started, [{ key: KEY, name: 'v1' }]);
    const again = await post(KEY);
    assert.equal(again.status, 409);
    assert.match(((await again.json()) as { error: string }).error, /already running/);
    const detail = (await (
      await fetch(`${dashboard.url}api/resource?key=${encodeURIComponent(KEY)}`)
    ).json()) as ResourceDetail;
    const panel = detail.panels.find((p) => p.kind === 'autoscaler');
    assert.equal(panel?.kind === 'autoscaler' && panel.canSendLoad, true);
    assert.equal(panel?.kind === 'autoscaler' && panel.loadUntil, 1_000, 'the page shows the running load');
  });

  it('refuses keys that are not a visible VariantAutoscaling, foreign origins and non-JSON writes', async () => {
    const before = started.length;
    for (const key of [`apps/Deployment/${NS}/d`, `llmd.ai/VariantAutoscaling/${NS}/nope`, '', '../../etc'])
      assert.equal((await post(key)).status, 404, key);
    assert.equal((await post(KEY, { headers: { Origin: 'http://evil.example' } })).status, 403);
    assert.equal((await post(KEY, { headers: { 'Content-Type': 'text/plain' } })).status, 403);
    assert.equal(started.length, before, 'nothing started');
  });

  it("the form's schema errors are the API server's words (a dry-run create), not the schema library's", async () => {
    const body = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'typo', namespace: NS },
      spec: { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 'two' } } },
    };
    const r = await fetch(`${dashboard.url}api/modeldeployments/validate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const v = (await r.json()) as { errors: Array<{ field: string; message: string }>; source: string };
    assert.equal(v.source, 'api-server');
    const gpu = v.errors.find((e) => e.field === 'spec.resources.gpu.count');
    assert.ok(gpu, JSON.stringify(v.errors));
    assert.match(
      gpu.message,
      /^spec\.resources\.gpu\.count: Invalid value: "string": .*must be of type integer/,
      gpu.message,
    );
    assert.doesNotMatch(JSON.stringify(v.errors), /Invalid input|expected number/, 'no zod wording');
    const missing = await fetch(`${dashboard.url}api/modeldeployments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(missing.status, 422, 'and nothing is created');
  });

  it("dev's runner: the Service whose selector picks the variant's pods, none for a variant without one", async () => {
    const va = dashboard.state.find(KEY)!;
    assert.equal(await variantService(client, va), 's');
    const orphan = { ...va, spec: { scaleTargetRef: { kind: 'Deployment', name: 'missing' } } } as KubeObject;
    assert.equal(await variantService(client, orphan), undefined);
  });
});

// The dashboard backend over HTTP against the embedded cluster: the overview stream pushes a kubectl change,
// a resource's page has its children and events, the form endpoint answers like the webhook, creates go
// through the API server, credentials are the user's own (a namespace-scoped ServiceAccount sees only what
// its Role allows), and a dashboard bound beyond loopback demands its token.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type Dashboard, startDashboard } from '../../../src/cli/dashboard/index.ts';
import { readChain } from '../../../src/cli/view/explain.ts';
import { explainChain } from '../../../src/cli/view/explain-chain.ts';
import type { ResourceDetail, SnapshotMessage } from '../../../src/cli/dashboard/types.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { createModelDeploymentViewer } from '../../helpers/viewer.ts';
import { waitFor } from '../../helpers/wait.ts';

const log = new Logger({}, 'silent');

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  url: string,
  opts: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(JSON.stringify(opts.body));
    req.end();
  });
}

/** reads Server-Sent Events until `until` is satisfied by one of them */
function readEvents(
  url: string,
  until: (event: string, data: any) => boolean,
  timeoutMs = 20_000,
): Promise<Array<{ event: string; data: any }>> {
  return new Promise((resolve, reject) => {
    const seen: Array<{ event: string; data: any }> = [];
    const req = request(url, (res) => {
      let buf = '';
      res.on('data', (d) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || data === undefined) continue;
          seen.push({ event, data: JSON.parse(data) });
          if (until(event, seen.at(-1)!.data)) {
            clearTimeout(timer);
            req.destroy();
            resolve(seen);
          }
        }
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no matching event within ${timeoutMs} ms; saw ${seen.map((s) => s.event).join(', ')}`));
    }, timeoutMs);
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

const md = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name, namespace: 'team-a' },
  spec: { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, ...extra },
});

describe('dashboard backend', () => {
  let cluster: DevTestCluster;
  let dashboard: Dashboard;
  let staticDir: string;

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: ['team-a', 'team-b'] });
    staticDir = mkdtempSync(join(tmpdir(), 'modelplane-web-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    await cluster.admin.create(md('first'));
    const client = await KubeClient.create(cluster.dev.server.kubeconfigYaml());
    dashboard = await startDashboard({ client, cluster: 'test', user: 'admin', logger: log, staticDir });
  });
  after(async () => {
    await dashboard?.close();
    await cluster?.stop();
    rmSync(staticDir, { recursive: true, force: true });
  });

  it('streams a snapshot, then pushes a change made with kubectl (no polling)', async () => {
    const stream = readEvents(
      `${dashboard.url}api/stream`,
      (e, d) => e === 'changes' && d.upserts.some((u: any) => u.name === 'second'),
    );
    await new Promise((r) => setTimeout(r, 200));
    await cluster.k(['apply', '-f', '-'], JSON.stringify(md('second')));
    const events = await stream;
    const snapshot = events[0]!.data as SnapshotMessage;
    assert.equal(events[0]!.event, 'snapshot');
    assert.ok(snapshot.resources.some((r) => r.key === 'kubeairunway.ai/ModelDeployment/team-a/first'));
    assert.ok(snapshot.info.kinds.some((k) => k.kind === 'ModelDeployment' && k.primary));
    assert.deepEqual(snapshot.info.hidden, []);
  });

  it("a resource's page: summary, events and children, live", async () => {
    const key = 'kubeairunway.ai/ModelDeployment/team-a/first';
    const first = await call(`${dashboard.url}api/resource?key=${encodeURIComponent(key)}`);
    assert.equal(first.status, 200);
    const detail = JSON.parse(first.body) as ResourceDetail;
    assert.equal(detail.summary.name, 'first');
    assert.equal(detail.panels[0]!.kind, 'selection');
    assert.ok(!JSON.stringify(detail.object).includes('managedFields'));
    const owned = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'first-extra',
        namespace: 'team-a',
        ownerReferences: [
          {
            apiVersion: 'kubeairunway.ai/v1alpha1',
            kind: 'ModelDeployment',
            name: 'first',
            uid: (detail.object as any).metadata.uid,
          },
        ],
      },
      data: { a: 'b' },
    };
    const stream = readEvents(
      `${dashboard.url}api/stream/resource?key=${encodeURIComponent(key)}`,
      (e, d) => e === 'detail' && d.children.some((c: any) => c.name === 'first-extra'),
    );
    await new Promise((r) => setTimeout(r, 200));
    const child = (await cluster.admin.create(owned)) as KubeObject;
    await stream;
    // an event about the child shows on the resource's page, naming the child
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'first-extra.1', namespace: 'team-a' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'first-extra',
        namespace: 'team-a',
        uid: child.metadata.uid,
      },
      reason: 'Checked',
      message: 'child looked at',
      type: 'Warning',
      source: { component: 'test' },
    };
    const withEvent = readEvents(
      `${dashboard.url}api/stream/resource?key=${encodeURIComponent(key)}`,
      (e, d) =>
        e === 'detail' && d.events.some((ev: any) => ev.object === 'ConfigMap first-extra' && ev.reason === 'Checked'),
    );
    await new Promise((r) => setTimeout(r, 200));
    await cluster.admin.create(event);
    await withEvent;
    assert.equal((await call(`${dashboard.url}api/resource?key=nope`)).status, 404);
  });

  it("an AIMService's page says why it is not Running in `modelplane explain`'s words, and follows the chain", async () => {
    const aim = 'aim.eai.amd.com/v1alpha1';
    const meta = (name: string) => ({ name, namespace: 'team-a' });
    const cond = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const withStatus = async (obj: Record<string, unknown>, status: Record<string, unknown>) => {
      await cluster.admin.apply(obj as KubeObject);
      await cluster.admin.applyStatus({ ...obj, status } as unknown as KubeObject);
    };
    const ready = { status: 'Ready', conditions: [cond('Ready', 'True', 'AllComponentsReady', '')] };
    await withStatus({ apiVersion: aim, kind: 'AIMModel', metadata: meta('qwen'), spec: { image: 'x/qwen:1' } }, ready);
    await withStatus(
      {
        apiVersion: aim,
        kind: 'AIMServiceTemplate',
        metadata: meta('qwen-tpl'),
        spec: { modelName: 'qwen' },
      },
      ready,
    );
    await withStatus(
      {
        apiVersion: aim,
        kind: 'AIMTemplateCache',
        metadata: meta('qwen-tc'),
        spec: { templateName: 'qwen-tpl', templateScope: 'Namespace' },
      },
      {
        status: 'Progressing',
        artifacts: { qwen: { name: 'qwen-art' } },
        conditions: [cond('ArtifactsReady', 'Unknown', 'ArtifactsNotReady', 'waiting for AIMArtifact qwen-art')],
      },
    );
    const artifact = {
      apiVersion: aim,
      kind: 'AIMArtifact',
      metadata: meta('qwen-art'),
      spec: { sourceUri: 'hf://org/qwen' },
    };
    const unschedulable = 'pod qwen-art-dl-1-x: 0/2 nodes are available: 2 Insufficient memory';
    await withStatus(artifact, {
      status: 'Progressing',
      conditions: [cond('DownloadJobPodsReady', 'False', 'FailedScheduling', unschedulable)],
    });
    await withStatus(
      { apiVersion: aim, kind: 'AIMService', metadata: meta('chat'), spec: { model: { name: 'qwen' } } },
      {
        status: 'Starting',
        resolvedModel: { kind: 'AIMModel', name: 'qwen', namespace: 'team-a' },
        resolvedTemplate: { kind: 'AIMServiceTemplate', name: 'qwen-tpl', namespace: 'team-a' },
        cache: { templateCacheRef: { kind: 'AIMTemplateCache', name: 'qwen-tc', namespace: 'team-a' } },
        conditions: [
          cond('ModelReady', 'True', 'ModelResolved', ''),
          cond('TemplateReady', 'True', 'Resolved', ''),
          cond('CacheReady', 'Unknown', 'CacheNotReady', 'waiting for AIMTemplateCache team-a/qwen-tc'),
        ],
      },
    );
    const key = 'aim.eai.amd.com/AIMService/team-a/chat';
    const explained = async () => {
      const reply = await call(`${dashboard.url}api/resource?key=${encodeURIComponent(key)}`);
      const panel = reply.status === 200 ? (JSON.parse(reply.body) as ResourceDetail).panels[0] : undefined;
      return panel?.kind === 'explain' ? panel : undefined;
    };
    const cli = async () => explainChain((await readChain(cluster.admin, 'team-a', 'chat'))!);
    const want =
      'AIMService team-a/chat is Starting. Walking AIMService team-a/chat → AIMModel team-a/qwen → ' +
      'AIMServiceTemplate team-a/qwen-tpl → AIMTemplateCache team-a/qwen-tc → ' +
      `AIMArtifact team-a/qwen-art: AIMArtifact team-a/qwen-art (Progressing) has DownloadJobPodsReady=False FailedScheduling: ${unschedulable}.`;
    await waitFor('the page names the unschedulable download pod', async () => (await explained())?.text === want, {
      detail: async () => `page: ${(await explained())?.text}`,
    });
    assert.equal(await cli(), want);
    assert.equal((await explained())?.running, false);
    // the artifact recovers and the service runs: the page follows, still in the command's words
    await cluster.admin.applyStatus({ ...artifact, status: ready } as KubeObject);
    await cluster.admin.applyStatus({
      apiVersion: aim,
      kind: 'AIMService',
      metadata: meta('chat'),
      status: { status: 'Running', conditions: [cond('Ready', 'True', 'AllComponentsReady', '')] },
    } as KubeObject);
    const running = 'AIMService team-a/chat is Running: every link of its chain is ready.';
    await waitFor('the page says it is Running', async () => (await explained())?.text === running, {
      detail: async () => `page: ${(await explained())?.text}`,
    });
    assert.equal(await cli(), running);
    assert.equal((await explained())?.running, true);
  });

  it('the form endpoint gives the webhook messages; create goes through the API server', async () => {
    const bad = JSON.parse(
      (
        await call(`${dashboard.url}api/modeldeployments/validate`, {
          method: 'POST',
          body: md('bad.name', { resources: { gpu: { count: 0 } } }),
        })
      ).body,
    );
    assert.ok(bad.errors.some((e: any) => e.field === 'metadata.name'));
    assert.ok(bad.errors.some((e: any) => e.field === 'spec.resources.gpu.count'));
    const refused = await call(`${dashboard.url}api/modeldeployments`, { method: 'POST', body: md('bad.name') });
    assert.equal(refused.status, 422);
    const created = await call(`${dashboard.url}api/modeldeployments`, { method: 'POST', body: md('from-form') });
    assert.equal(created.status, 201, created.body);
    assert.equal(
      (
        await cluster.admin.get(
          { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' },
          'from-form',
          'team-a',
        )
      ).metadata.name,
      'from-form',
    );
    const dup = await call(`${dashboard.url}api/modeldeployments`, { method: 'POST', body: md('from-form') });
    assert.equal(dup.status, 409, 'the API server answer reaches the form');
  });

  it('refuses cross-site writes and foreign Host headers', async () => {
    const form = await call(`${dashboard.url}api/modeldeployments`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(form.status, 403);
    const origin = await call(`${dashboard.url}api/modeldeployments`, {
      method: 'POST',
      body: md('x'),
      headers: { Origin: 'http://evil.example' },
    });
    assert.equal(origin.status, 403);
    const rebinding = await call(`${dashboard.url}api/info`, { headers: { Host: 'evil.example' } });
    assert.equal(rebinding.status, 421);
  });

  it("reads with the user's own credentials: a namespace-scoped ServiceAccount sees its Role's kinds only", async () => {
    const token = await createModelDeploymentViewer(cluster, 'team-a');
    const client = await KubeClient.create(cluster.dev.server.kubeconfigYaml({ token }));
    const d = await startDashboard({
      client,
      cluster: 'test',
      user: 'viewer',
      logger: log,
      staticDir,
      namespace: 'team-a',
    });
    try {
      const info = JSON.parse((await call(`${d.url}api/info`)).body);
      assert.deepEqual(
        info.kinds.map((k: any) => k.kind),
        ['ModelDeployment'],
      );
      assert.ok(
        info.hidden.includes('events') && info.hidden.includes('inferenceproviderconfigs.kubeairunway.ai'),
        info.hidden.join(),
      );
      const names = JSON.parse((await call(`${d.url}api/resources`)).body)
        .map((r: any) => r.name)
        .sort();
      assert.ok(names.includes('first') && names.includes('second'));
      const denied = await call(`${d.url}api/modeldeployments`, { method: 'POST', body: md('viewer-made') });
      assert.equal(
        denied.status,
        403,
        'the Role grants no create: the API server says no, the dashboard adds no rights',
      );
      assert.match(JSON.parse(denied.body).errors[0].message, /forbidden/i);
    } finally {
      await d.close();
    }
  });

  it('bound beyond loopback, every request needs the token; the token in the URL becomes a cookie', async () => {
    const client = await KubeClient.create(cluster.dev.server.kubeconfigYaml());
    const d = await startDashboard({ client, cluster: 'test', user: 'admin', logger: log, staticDir, host: '0.0.0.0' });
    try {
      assert.ok(d.token && d.token.length >= 32);
      const base = `http://127.0.0.1:${new URL(d.url).port}/`;
      assert.equal((await call(`${base}api/info`)).status, 401);
      assert.equal((await call(`${base}api/info`, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
      assert.equal((await call(`${base}api/info`, { headers: { Authorization: `Bearer ${d.token}` } })).status, 200);
      const login = await call(`${base}?token=${d.token}`);
      assert.equal(login.status, 303);
      assert.equal(login.headers.location, '/');
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      assert.match(String(login.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
      assert.equal((await call(`${base}api/info`, { headers: { Cookie: cookie } })).status, 200);
    } finally {
      await d.close();
    }
  });
});

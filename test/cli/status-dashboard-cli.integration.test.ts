// `modelplane status` and `modelplane dashboard` as commands against a cluster they did not start, with a
// ServiceAccount's kubeconfig: they see what its Role allows and name what it does not; the dashboard bound
// beyond loopback prints a token and refuses requests without it.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { listStatusRows } from '../../src/cli/status/command.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { createModelDeploymentViewer } from '../helpers/viewer.ts';

const CLI = resolve('bin/modelplane.js');

/** the CLI as a child process, asynchronously: the API server it talks to runs in this process */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

describe('modelplane status and dashboard with limited credentials', () => {
  let cluster: DevTestCluster;
  let viewerKubeconfig: string;

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: ['team-a', 'team-b'] });
    for (const ns of ['team-a', 'team-b']) {
      await cluster.admin.create({
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        metadata: { name: `md-${ns}`, namespace: ns },
        spec: { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
      });
    }
    const token = await createModelDeploymentViewer(cluster, 'team-a');
    viewerKubeconfig = join(cluster.kubeconfig, '..', 'viewer.kubeconfig');
    writeFileSync(viewerKubeconfig, cluster.dev.server.kubeconfigYaml({ token }));
  });
  after(async () => {
    await cluster?.stop();
  });

  it('status lists what the credentials may list and names the rest', async () => {
    const client = await KubeClient.create(
      cluster.dev.server.kubeconfigYaml({
        token: (await cluster.k(['create', 'token', 'viewer', '-n', 'team-a'])).trim(),
      }),
    );
    const listing = await listStatusRows(client, 'team-a');
    client.close();
    assert.deepEqual(
      listing.rows.map((r) => `${r.kind} ${r.namespace}/${r.name}`),
      ['ModelDeployment team-a/md-team-a'],
    );
    assert.ok(listing.forbidden.includes('aimservices.aim.eai.amd.com'), listing.forbidden.join());
    const out = await runCli(['status', '--kubeconfig', viewerKubeconfig, '-n', 'team-a']);
    assert.equal(out.status, 0, out.stderr);
    assert.match(out.stdout, /^… ModelDeployment {2}team-a\/md-team-a {2}Pending {2}no status reported yet/m);
    assert.match(out.stdout, /\(not allowed to list .*aimservices\.aim\.eai\.amd\.com.* with these credentials\)/);
  });

  it('dashboard bound beyond loopback prints a token URL and serves only with it', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [CLI, 'dashboard', '--kubeconfig', viewerKubeconfig, '-n', 'team-a', '--address', '0.0.0.0', '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MODELPLANE_LOG_LEVEL: 'silent' } },
    );
    try {
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      const deadline = Date.now() + 30_000;
      while (!/not visible/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const m = /^dashboard: http:\/\/127\.0\.0\.1:(\d+)\/\?token=([\w-]+) {2}\(bound beyond loopback/m.exec(out);
      assert.ok(m, out);
      assert.doesNotMatch(out, /0\.0\.0\.0/, 'a browser cannot open 0.0.0.0');
      assert.match(out, /not visible with these credentials: .*events/);
      const base = `http://127.0.0.1:${m[1]}`;
      assert.equal((await fetch(`${base}/api/info`)).status, 401);
      const info = (await (
        await fetch(`${base}/api/info`, { headers: { Authorization: `Bearer ${m[2]}` } })
      ).json()) as { kinds: Array<{ kind: string }> };
      assert.deepEqual(
        info.kinds.map((k) => k.kind),
        ['ModelDeployment'],
      );
    } finally {
      child.kill('SIGTERM');
    }
  });
});

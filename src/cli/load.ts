// `modelplane load`: drives chat-completion load at vLLM-compatible servers (the inference simulator of
// `modelplane dev`, or real vLLM pods), spread over a Service's ready endpoints or the URLs given. This file
// holds only the command's flags: what it runs lives in load/command.ts, imported when the command runs.
import type { Command } from 'commander';
import { importCommand } from './lazy.ts';
import type { LoadFlags } from './load/options.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(COMMAND_SUMMARIES.load)
    .option('--url <url...>', 'server base URLs, e.g. http://127.244.2.3:8000 (repeatable)')
    .option('--service <namespace/name>', "spread over this Service's ready endpoints")
    .option('--kubeconfig <file>', 'kubeconfig for --service', '.modelplane/kubeconfig')
    .requiredOption('--model <id>', 'the served model name')
    .option('--concurrency <n>', 'concurrent clients', '8')
    .option('--duration <seconds>', 'how long to send', '30')
    .option('--max-tokens <n>', 'max_tokens per request', '128')
    .option('--rate <rps>', 'requests per second over all clients (default: as fast as they go)')
    .option('--stream', 'stream the answers (server-sent events)')
    .action(async (flags: LoadFlags) => {
      // loaded when the command runs: the load generator lives with the inference simulator
      const { load } = await importCommand('load', () => import('./load/command.ts'));
      const summary = await load(flags);
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      if (summary.ok === 0) process.exitCode = 1;
    });
}

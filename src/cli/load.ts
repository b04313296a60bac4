// `modelplane load`: drives chat-completion load at vLLM-compatible servers (the inference simulator of
// `modelplane dev`, or real vLLM pods), spread over a Service's ready endpoints or the URLs given.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { kindRef, KubeClient, type KubeObject } from '../kube/index.ts';
import { type LoadSummary, runLoad } from '../sim/inference/index.ts';
import { UsageError } from './options.ts';

interface LoadFlags {
  url?: string[];
  service?: string;
  kubeconfig: string;
  model: string;
  concurrency: string;
  duration: string;
  maxTokens: string;
  rate?: string;
  stream?: boolean;
}

interface EndpointsObject extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ port: number; name?: string }> }>;
}
const EndpointsKind = kindRef<EndpointsObject>('v1', 'Endpoints');

const positive = (v: string, flag: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`invalid ${flag} "${v}": must be a positive number`);
  return n;
};

/** a Service's ready endpoint URLs, read from its Endpoints (as kube-proxy spreads connections over them) */
export async function serviceTargets(client: KubeClient, namespace: string, name: string): Promise<string[]> {
  const ep = await client.getOrUndefined(EndpointsKind, name, namespace);
  return (ep?.subsets ?? []).flatMap((s) =>
    (s.addresses ?? []).flatMap((a) => (s.ports ?? []).slice(0, 1).map((p) => `http://${a.ip}:${p.port}`)),
  );
}

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(
      "Send chat-completion load to vLLM-compatible servers: a Service's ready pods (re-read every second, so new replicas get load) or fixed URLs; prints a JSON summary.",
    )
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
      const summary = await load(flags);
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      if (summary.ok === 0) process.exitCode = 1;
    });
}

async function load(flags: LoadFlags): Promise<LoadSummary> {
  if (!flags.url?.length && !flags.service) throw new UsageError('give --service <namespace/name> or --url <url>');
  let targets: string[] | (() => Promise<string[]>) = flags.url ?? [];
  let client: KubeClient | undefined;
  if (flags.service) {
    const [namespace, name] = flags.service.includes('/') ? flags.service.split('/', 2) : ['default', flags.service];
    client = await KubeClient.create(readFileSync(flags.kubeconfig, 'utf8'));
    const c = client;
    targets = () => serviceTargets(c, namespace!, name!);
  }
  try {
    return await runLoad({
      targets,
      model: flags.model,
      concurrency: Math.round(positive(flags.concurrency, '--concurrency')),
      durationMs: positive(flags.duration, '--duration') * 1000,
      maxTokens: Math.round(positive(flags.maxTokens, '--max-tokens')),
      ...(flags.rate ? { rate: positive(flags.rate, '--rate') } : {}),
      stream: flags.stream === true,
      onProgress: (p) =>
        process.stderr.write(
          `${Math.round(p.elapsedMs / 1000)}s: ${p.ok} ok, ${p.errors} errors, ${p.inFlight} in flight over ${p.targets} endpoints\n`,
        ),
    });
  } finally {
    client?.close();
  }
}

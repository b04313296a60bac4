// What `modelplane load` runs (its flags are in ../load.ts): the targets (fixed URLs, or a Service's ready
// endpoints re-read every second) and the load generator of the inference simulator.
import { readFileSync } from 'node:fs';
import { KubeClient } from '@modelplane/runtime/client';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type LoadSummary, runLoad } from '@modelplane/sim/inference';
import type { LoadFlags } from '../load.ts';
import { UsageError } from '../options.ts';

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

export async function load(flags: LoadFlags): Promise<LoadSummary> {
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

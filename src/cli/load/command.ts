// What `modelplane load` runs (its flags are in ../load.ts): the targets (fixed URLs, or a Service's ready
// endpoints re-read every second) and the load generator of the inference simulator.
import { readFileSync } from 'node:fs';
import { KubeClient } from '@modelplane/runtime/client';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type LoadSummary, runLoad } from '@modelplane/sim/inference';
import { UsageError } from '../options.ts';
import type { LoadFlags } from './options.ts';

interface EndpointsObject extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ port: number; name?: string }> }>;
}
const EndpointsKind = kindRef<EndpointsObject>('v1', 'Endpoints');
interface ServiceObject extends KubeObject {
  spec?: { selector?: Record<string, string>; ports?: Array<{ port: number; targetPort?: number | string }> };
}
const ServiceKind = kindRef<ServiceObject>('v1', 'Service');
interface PodObject extends KubeObject {
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
const PodKind = kindRef<PodObject>('v1', 'Pod');

const positive = (v: string, flag: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`invalid ${flag} "${v}": must be a positive number`);
  return n;
};

/**
 * A Service's ready endpoint URLs, read from its Endpoints (as kube-proxy spreads connections over them).
 * Without endpoint addresses, the Ready pods its selector picks: a real kube-apiserver refuses the simulated
 * nodes' loopback pod IPs in Endpoints (docs/real-kubernetes.md), so there the pods are the truth.
 */
export async function serviceTargets(client: KubeClient, namespace: string, name: string): Promise<string[]> {
  const ep = await client.getOrUndefined(EndpointsKind, name, namespace);
  const fromEndpoints = (ep?.subsets ?? []).flatMap((s) =>
    (s.addresses ?? []).flatMap((a) => (s.ports ?? []).slice(0, 1).map((p) => `http://${a.ip}:${p.port}`)),
  );
  if (fromEndpoints.length > 0) return fromEndpoints;
  const svc = await client.getOrUndefined(ServiceKind, name, namespace);
  const selector = svc?.spec?.selector;
  const port = svc?.spec?.ports?.[0];
  if (!selector || Object.keys(selector).length === 0 || !port) return [];
  const targetPort = typeof port.targetPort === 'number' ? port.targetPort : port.port;
  const labelSelector = Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = await client.list(PodKind, { namespace, labelSelector });
  return pods.items
    .filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        p.status?.podIP &&
        p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    )
    .map((p) => `http://${p.status!.podIP}:${targetPort}`);
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

// The fetch side of pod inspection: events and last log lines, read live (they are not cached) and only
// for pods that are not healthy, so a running workload costs no extra requests. Best effort: a read that
// fails leaves that piece out and the inspectors judge from what is there.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { ReadClient } from '../types.ts';
import type { PodDiagnostics } from './pods.ts';
import { type CoreEvent, findCondition, type Pod } from './types.ts';

const CoreEvents = kindRef<CoreEvent>('v1', 'Event');

export interface DiagnosticsOptions {
  /** log lines to read per pod (default 20) */
  tailLines?: number;
  /** at most this many pods are inspected (default 5) */
  maxPods?: number;
}

function healthy(pod: Pod): boolean {
  if (pod.status?.phase === 'Succeeded') return true;
  return pod.status?.phase === 'Running' && findCondition(pod.status.conditions, 'Ready')?.status === 'True';
}

/** the container whose output explains a failure, and whether its previous run is the one to read */
function logTarget(pod: Pod): { container: string; previous: boolean } | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const c of statuses) {
    if (c.state?.waiting?.reason === 'CrashLoopBackOff') return { container: c.name, previous: true };
    if ((c.state?.terminated?.exitCode ?? 0) !== 0) return { container: c.name, previous: false };
  }
  return undefined;
}

async function podLogs(client: ReadClient, pod: Pod, tailLines: number): Promise<string | undefined> {
  const target = logTarget(pod);
  if (!target) return undefined;
  const { name, namespace } = pod.metadata;
  return client.podLog(namespace ?? 'default', name ?? '', { ...target, tailLines });
}

async function podEvents(client: ReadClient, pod: Pod): Promise<CoreEvent[]> {
  const { name, namespace } = pod.metadata;
  const list = await client.list(CoreEvents, {
    namespace: namespace ?? 'default',
    fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${name}`,
  });
  return list.items;
}

export async function fetchPodDiagnostics(
  client: ReadClient,
  pods: readonly Pod[],
  opts: DiagnosticsOptions = {},
): Promise<PodDiagnostics> {
  const tailLines = opts.tailLines ?? 20;
  const unhealthy = pods.filter((p) => !p.metadata.deletionTimestamp && !healthy(p)).slice(0, opts.maxPods ?? 5);
  const events: CoreEvent[] = [];
  const logs: Record<string, string> = {};
  await Promise.all(
    unhealthy.map(async (pod) => {
      const [ev, log] = await Promise.all([
        podEvents(client, pod).catch(() => []),
        podLogs(client, pod, tailLines).catch(() => undefined),
      ]);
      events.push(...ev);
      if (log) logs[pod.metadata.name ?? ''] = log;
    }),
  );
  return { events, logs };
}

/** events about one object (a PVC's ProvisioningFailed, say), read live; empty on failure */
export async function fetchEventsFor(client: ReadClient, obj: KubeObject): Promise<CoreEvent[]> {
  const { name, namespace } = obj.metadata;
  try {
    const list = await client.list(CoreEvents, {
      ...(namespace ? { namespace } : {}),
      fieldSelector: `involvedObject.kind=${obj.kind},involvedObject.name=${name}`,
    });
    return list.items;
  } catch {
    return [];
  }
}

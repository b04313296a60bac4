// Pod health read live for a workload that is not done yet: its pods (by label selector), then the events
// and last log lines of the unhealthy ones (fetchPodDiagnostics), judged by podsHealth. Controllers call
// it only while the workload they wait for is not finished or not ready, so a steady state costs nothing;
// a read that fails yields undefined (the caller reports what it knows without the pods).
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { HealthReport } from '../health.ts';
import type { ReadClient } from '../types.ts';
import { fetchPodDiagnostics } from './diagnostics.ts';
import { podsHealth } from './pods.ts';
import type { Pod } from './types.ts';

const Pods = kindRef<Pod>('v1', 'Pod');

/** the health of the pods `labelSelector` selects in `namespace`; undefined when they could not be read */
export async function livePodsHealth(
  client: ReadClient,
  namespace: string,
  labelSelector: string,
  keep: (pod: Pod) => boolean = () => true,
): Promise<HealthReport | undefined> {
  let pods: Pod[];
  try {
    pods = (await client.list(Pods, { namespace, labelSelector })).items.filter(keep);
  } catch {
    return undefined;
  }
  const diag = await fetchPodDiagnostics(client, pods);
  return podsHealth(pods, diag);
}

/** the health of a Job's pods (a Job recreated under the same name: only the current Job's pods count) */
export function jobPodsHealth(client: ReadClient, job: KubeObject): Promise<HealthReport | undefined> {
  const uid = job.metadata.uid;
  return livePodsHealth(
    client,
    job.metadata.namespace ?? 'default',
    `job-name=${job.metadata.name ?? ''}`,
    (p) => !uid || !p.metadata.ownerReferences || p.metadata.ownerReferences.some((r) => r.uid === uid),
  );
}

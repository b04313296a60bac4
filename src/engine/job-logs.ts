// The log of a Job's (latest) pod, read live: pod logs are not cached. Only called when a Job has finished
// and its output is wanted (discovery profile, check-size result, download progress), so a steady state
// costs nothing.
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { ReadClient } from './types.ts';

const Pods = kindRef<KubeObject & { status?: { startTime?: string } }>('v1', 'Pod');

export async function jobPodLog(
  client: ReadClient,
  job: KubeObject,
  container: string,
  tailLines = 200,
): Promise<string | undefined> {
  const { name, namespace } = job.metadata;
  const pods = (await client.list(Pods, { namespace: namespace ?? 'default', labelSelector: `job-name=${name}` }))
    .items;
  // a Job recreated under the same name: the old Job's pods may linger until garbage-collected
  const uid = job.metadata.uid;
  const latest = pods
    .filter((p) => !uid || !p.metadata.ownerReferences || p.metadata.ownerReferences.some((r) => r.uid === uid))
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''))
    .at(-1);
  if (!latest) return undefined;
  return client.podLog(namespace ?? 'default', latest.metadata.name ?? '', { container, tailLines });
}

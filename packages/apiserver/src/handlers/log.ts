// pods/log: container output as text/plain. kube-apiserver checks the container name against every container
// of the pod (init, app and ephemeral), answers an unscheduled pod with no output, and otherwise proxies to
// the kubelet of the pod's node with `previous`, `tailLines` and `limitBytes`; here whoever simulates the
// kubelet registers a LogProvider that gets them, and this handler answers as that kubelet would.
import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { boolParam, intParam } from './params.ts';
import { current, type ResourceRequest } from './request.ts';

interface PodSpecContainers {
  nodeName?: string;
  initContainers?: Array<{ name: string }>;
  containers?: Array<{ name: string }>;
  ephemeralContainers?: Array<{ name: string }>;
}

/** kube-apiserver's validateContainer: the named container, or the pod's only app container */
function logContainer(pod: KubeObject, requested: string | null): string {
  const spec = (pod.spec ?? {}) as PodSpecContainers;
  const apps = (spec.containers ?? []).map((c) => c.name);
  const all = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map(
    (c) => c.name,
  );
  const name = pod.metadata.name;
  if (requested) {
    if (!all.includes(requested)) throw errors.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (apps.length === 1) return apps[0]!;
  if (apps.length === 0) throw errors.badRequest(`pod ${name} does not have a container`);
  throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
}

export async function handlePodLog(r: ResourceRequest): Promise<number> {
  const pod = await current(r);
  const container = logContainer(pod, r.query.get('container'));
  const opts = {
    previous: boolParam(r.query, 'previous'),
    tailLines: intParam(r.query, 'tailLines'),
    limitBytes: intParam(r.query, 'limitBytes'),
  };
  const { namespace, name } = pod.metadata as { namespace: string; name: string };
  let text = '';
  // an unscheduled pod has no kubelet to ask: no output, as kube-apiserver answers
  if ((pod.spec as PodSpecContainers | undefined)?.nodeName && r.core.logProvider) {
    const log = r.core.logProvider(namespace, name, container, opts);
    // the kubelet's answers for a container with no output of the kind asked for
    if (log === undefined && opts.previous)
      throw errors.badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
    if (log === undefined)
      throw errors.badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
    text = log;
  }
  r.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  r.res.end(text);
  return 200;
}

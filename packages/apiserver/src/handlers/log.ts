// pods/log: container output as text/plain. On a real cluster the kubelet serves it; here whoever
// simulates the kubelet registers a LogProvider. `tailLines`, `container` and `limitBytes` are honoured.
import { errors } from '../errors.ts';
import { intParam } from './params.ts';
import { type ResourceRequest, current } from './request.ts';

export async function handlePodLog(r: ResourceRequest): Promise<number> {
  const pod = await current(r);
  const spec = (pod.spec ?? {}) as { containers?: Array<{ name: string }> };
  const containers = (spec.containers ?? []).map((c) => c.name);
  let container = r.query.get('container') ?? undefined;
  if (!container) {
    if (containers.length > 1) {
      throw errors.badRequest(
        `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${containers.join(' ')}]`,
      );
    }
    container = containers[0];
  } else if (!containers.includes(container)) {
    throw errors.badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`);
  }
  let text = r.core.logProvider?.(pod.metadata.namespace!, pod.metadata.name!, container) ?? '';
  const tail = intParam(r.query, 'tailLines');
  if (tail !== undefined && tail >= 0) {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    text = lines.slice(Math.max(0, lines.length - tail)).join('\n') + (lines.length && tail > 0 ? '\n' : '');
  }
  const limit = intParam(r.query, 'limitBytes');
  if (limit !== undefined && limit > 0) text = Buffer.from(text).subarray(0, limit).toString('utf8');
  r.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  r.res.end(text);
  return 200;
}

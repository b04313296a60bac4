// Fault injection on the real backend: the fault proxy in front of kube-apiserver. Only clients whose
// kubeconfig goes through `route()` meet the faults; the rest talk to kube-apiserver directly.
import { parse, stringify } from 'yaml';
import type { RealControlPlane } from '../../real/index.ts';
import { startFaultProxy } from './proxy.ts';
import type { FaultInjection } from './types.ts';

/** `kubeconfigYaml` with every cluster's server set to `url` */
export function withServer(kubeconfigYaml: string, url: string): string {
  const config = parse(kubeconfigYaml) as { clusters?: Array<{ cluster?: { server?: string } }> };
  for (const c of config.clusters ?? []) if (c.cluster) c.cluster.server = url;
  return stringify(config);
}

export async function realFaultInjection(plane: RealControlPlane): Promise<FaultInjection> {
  const proxy = await startFaultProxy(plane);
  return {
    backend: 'real',
    faults: {
      add: (spec) => proxy.faults.add(spec),
      remove: (id) => proxy.faults.remove(id),
      clear: () => {
        proxy.faults.clear();
        proxy.watches.stall(false);
      },
      list: () => proxy.faults.list(),
      closeWatches: () => proxy.watches.closeAll(),
      stallWatches: (on) => proxy.watches.stall(on),
      expireWatches: () => proxy.watches.expire(() => proxy.currentResourceVersion()),
      faulted: () => proxy.faults.faulted(),
    },
    route: (kubeconfigYaml) => withServer(kubeconfigYaml, proxy.url),
    restartApiServer: () => plane.restartApiServer(),
    stop: () => proxy.close(),
  };
}

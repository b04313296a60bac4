// Runs a simulated Llama Stack server (server.ts) for every running pod of a LlamaStackDistribution in
// `modelplane dev`: the server reads the pod's mounted config.yaml and environment (Secret values
// included, as the container would see them), its address is registered for the `<name>-service`
// Service in the API server's ServiceEndpoints and written to the container's log as the real server's
// startup line, and it is stopped when the pod stops running (docs/llamastack.md, "Dev cluster").
import { ConfigMaps, type KubeObject, type Manager, Pods, type ReconcileContext, type Request, Secrets } from '../../kube/index.ts';
import type { PodLogStore } from '../workloads/index.ts';
import { type SimLlamaStackServer, startSimLlamaStackServer } from './server.ts';

export const LLAMASTACK_SIM_CONTROLLER = 'sim-llama-stack';

/** the embedded API server's Service → local URL registry (shared with webhook resolution) */
export interface ServiceEndpointRegistry {
  register(namespace: string, name: string, port: number, baseUrl: string): unknown;
  resolve(namespace: string, name: string, port?: number): string | undefined;
}

interface PodShape extends KubeObject {
  spec?: { containers?: Array<{ name: string; env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>; ports?: Array<{ containerPort: number }> }>; volumes?: Array<{ name: string; configMap?: { name: string; items?: Array<{ key: string }> } }> };
  status?: { phase?: string };
}

/** `http://svc.ns.svc.cluster.local:port/path` → the registered local URL of that Service port, plus the path */
export function clusterUrlResolver(endpoints: ServiceEndpointRegistry): (url: string) => string | undefined {
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    const m = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?$/.exec(u.hostname);
    if (!m) return url;
    const base = endpoints.resolve(m[2]!, m[1]!, Number(u.port || (u.protocol === 'https:' ? 443 : 80)));
    return base ? `${base.replace(/\/+$/, '')}${u.pathname.replace(/\/+$/, '')}` : undefined;
  };
}

async function podEnv(pod: PodShape, ctx: ReconcileContext): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const e of pod.spec?.containers?.[0]?.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const s = await ctx.cache.get(Secrets, ref.name, pod.metadata.namespace);
      const v = s?.data?.[ref.key];
      if (v !== undefined) env[e.name] = Buffer.from(v, 'base64').toString('utf8');
    }
  }
  return env;
}

export function registerLlamaStackSimulator(mgr: Manager, opts: { endpoints: ServiceEndpointRegistry; logs?: PodLogStore }): { stop(): Promise<void> } {
  const servers = new Map<string, { uid: string; server: SimLlamaStackServer }>();
  const stopPod = async (key: string) => {
    const s = servers.get(key);
    servers.delete(key);
    await s?.server.close();
  };
  const reconcile = async (req: Request, ctx: ReconcileContext) => {
    const key = `${req.namespace}/${req.name}`;
    const pod = (await ctx.cache.get(Pods, req.name, req.namespace)) as PodShape | undefined;
    const instance = pod?.metadata.labels?.['app.kubernetes.io/instance'];
    if (pod?.metadata.labels?.app !== 'llama-stack' || !instance || pod.status?.phase !== 'Running' || pod.metadata.deletionTimestamp) return stopPod(key);
    if (servers.get(key)?.uid === pod.metadata.uid) return;
    await stopPod(key);
    const volume = pod.spec?.volumes?.find((v) => v.name === 'user-config')?.configMap;
    const cm = volume ? await ctx.cache.get(ConfigMaps, volume.name, req.namespace) : undefined;
    const config = cm?.data?.[volume?.items?.[0]?.key ?? 'config.yaml'];
    if (config === undefined) return;
    const server = await startSimLlamaStackServer({ config, env: await podEnv(pod, ctx), resolveUrl: clusterUrlResolver(opts.endpoints) });
    servers.set(key, { uid: pod.metadata.uid ?? '', server });
    const port = pod.spec?.containers?.[0]?.ports?.[0]?.containerPort ?? 8321;
    opts.endpoints.register(req.namespace ?? '', `${instance}-service`, port, server.url);
    opts.logs?.append(req.namespace ?? '', req.name, pod.metadata.uid ?? '', pod.spec?.containers?.[0]?.name ?? 'llama-stack', [`INFO     Uvicorn running on ${server.url} (simulated Llama Stack server)`]);
  };
  mgr.controller(LLAMASTACK_SIM_CONTROLLER).for(Pods).withOptions({ concurrency: 2 }).complete(reconcile);
  return { stop: async () => void (await Promise.all([...servers.keys()].map(stopPod))) };
}

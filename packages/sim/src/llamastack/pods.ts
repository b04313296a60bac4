// Runs a simulated Llama Stack server (server.ts) for every running pod of a LlamaStackDistribution in
// `modelplane dev`: the server reads the pod's mounted config.yaml and environment (Secret values
// included, as the container would see them), its address is registered for the `<name>-service`
// Service in the API server's ServiceEndpoints and written to the container's log as the real server's
// startup line, and it is stopped when the pod stops running (docs/llamastack.md, "Dev cluster").
import { ConfigMaps, Pods, Secrets } from '@modelplane/runtime/client';
import type { ReconcileContext, Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { serviceBackends } from '../service-backends.ts';
import type { PodLogStore } from '../workloads/index.ts';
import { type SimLlamaStackServer, startSimLlamaStackServer } from './server.ts';

export const LLAMASTACK_SIM_CONTROLLER = 'sim-llama-stack';

/** the embedded API server's Service → local URL registry (shared with webhook resolution) */
export interface ServiceEndpointRegistry {
  register(namespace: string, name: string, port: number, baseUrl: string): unknown;
  resolve(namespace: string, name: string, port?: number): string | undefined;
}

interface PodShape extends KubeObject {
  spec?: {
    containers?: Array<{
      name: string;
      env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
      ports?: Array<{ containerPort: number }>;
    }>;
    volumes?: Array<{ name: string; configMap?: { name: string; items?: Array<{ key: string }> } }>;
  };
  status?: { phase?: string; podIP?: string };
}

/** a Service port's ready backend, as kube-proxy would pick one: `http://<pod IP>:<target port>` */
export type ServiceBackendLookup = (namespace: string, service: string, port: number) => Promise<string | undefined>;

/**
 * `http://svc.ns.svc.cluster.local:port/path` → a local URL for that Service port plus the path: the
 * address registered for it, else one of its ready endpoints (simulated pods listen on their own loopback
 * IPs); other URLs are used as they are.
 */
export function clusterUrlResolver(
  endpoints: ServiceEndpointRegistry,
  backend?: ServiceBackendLookup,
): (url: string) => Promise<string | undefined> {
  return async (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    const m = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?$/.exec(u.hostname);
    if (!m) return url;
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const base = endpoints.resolve(m[2]!, m[1]!, port) ?? (await backend?.(m[2]!, m[1]!, port));
    return base ? `${base.replace(/\/+$/, '')}${u.pathname.replace(/\/+$/, '')}` : undefined;
  };
}

function cacheBackend(mgr: Manager): ServiceBackendLookup {
  const backends = serviceBackends(mgr);
  return async (ns, name, port) => (await backends(ns, name, port))[0];
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

export function registerLlamaStackSimulator(
  mgr: Manager,
  opts: { endpoints: ServiceEndpointRegistry; logs?: PodLogStore },
): { stop(): Promise<void> } {
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
    if (
      pod?.metadata.labels?.app !== 'llama-stack' ||
      !instance ||
      pod.status?.phase !== 'Running' ||
      pod.metadata.deletionTimestamp
    )
      return stopPod(key);
    if (servers.get(key)?.uid === pod.metadata.uid) return;
    await stopPod(key);
    const volume = pod.spec?.volumes?.find((v) => v.name === 'user-config')?.configMap;
    const cm = volume ? await ctx.cache.get(ConfigMaps, volume.name, req.namespace) : undefined;
    const config = cm?.data?.[volume?.items?.[0]?.key ?? 'config.yaml'];
    if (config === undefined) return;
    const port = pod.spec?.containers?.[0]?.ports?.[0]?.containerPort ?? 8321;
    const env = await podEnv(pod, ctx);
    const resolveUrl = clusterUrlResolver(opts.endpoints, cacheBackend(mgr));
    // on its own pod IP when the simulated nodes hand out loopback ones (reached through the Service, as on a
    // cluster); otherwise on any free local port
    const ip = pod.status?.podIP;
    const server = await (ip?.startsWith('127.')
      ? startSimLlamaStackServer({ config, env, resolveUrl, host: ip, port })
      : Promise.reject(new Error('no loopback pod IP'))
    ).catch(() => startSimLlamaStackServer({ config, env, resolveUrl }));
    servers.set(key, { uid: pod.metadata.uid ?? '', server });
    opts.endpoints.register(req.namespace ?? '', `${instance}-service`, port, server.url);
    opts.logs?.append(
      req.namespace ?? '',
      req.name,
      pod.metadata.uid ?? '',
      pod.spec?.containers?.[0]?.name ?? 'llama-stack',
      [`INFO     Uvicorn running on ${server.url} (simulated Llama Stack server)`],
    );
  };
  mgr.controller(LLAMASTACK_SIM_CONTROLLER).for(Pods).withOptions({ concurrency: 2 }).complete(reconcile);
  return { stop: async () => void (await Promise.all([...servers.keys()].map(stopPod))) };
}

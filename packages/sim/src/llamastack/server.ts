// A simulated Llama Stack server for `modelplane dev` pods: it parses the config.yaml the operator
// mounted and answers the parts of the API a user checks first, from that config: /v1/health,
// /v1/providers, /v1/models (as the real server shapes them), and /v1/chat/completions, which it forwards
// to the configured vLLM-compatible `base_url` of the model's provider, as the real remote::vllm
// provider does. Cluster DNS names are mapped to local addresses by `resolveUrl` (docs/llamastack.md,
// "Dev cluster").
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonBody, serveGuarded } from '@modelplane/runtime/serve';
import { parse as parseYaml } from 'yaml';

/** the largest request body it accepts (a chat request; 413 past it) */
export const LLAMA_STACK_MAX_BODY_BYTES = 4_000_000;

interface ProviderEntry {
  provider_id: string;
  provider_type: string;
  config?: Record<string, unknown>;
}
interface SimConfig {
  distro_name?: string;
  image_name?: string;
  apis?: string[];
  providers?: Record<string, ProviderEntry[]>;
  registered_resources?: {
    models?: Array<{ model_id: string; provider_id?: string; model_type?: string; metadata?: Record<string, unknown> }>;
  };
}

export interface SimLlamaStackOptions {
  /** config.yaml text */
  config: string;
  /** the process environment the config's ${env.X} references read */
  env?: Readonly<Record<string, string>>;
  /** maps a configured URL to one this process can reach (e.g. a Service's DNS name to a local simulator); undefined = unreachable */
  resolveUrl?: (url: string) => string | undefined | Promise<string | undefined>;
  host?: string;
  port?: number;
}

export interface SimLlamaStackServer {
  readonly url: string;
  close(): Promise<void>;
}

const ENV_REF = /\$\{env\.([A-Za-z0-9_]+)(?::([=+])([^}]*))?\}/g;

/** Llama Stack's substitution: ${env.X} (required), ${env.X:=default}, ${env.X:+value-if-set} */
export function substituteEnv(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(ENV_REF, (_m, name: string, op: string | undefined, arg: string | undefined) => {
    const v = env[name];
    if (op === '+') return v ? (arg ?? '') : '';
    if (op === '=') return v !== undefined && v !== '' ? v : (arg ?? '');
    return v ?? '';
  });
}

/** the providers the server loads: those whose id is not empty after substitution */
function activeProviders(cfg: SimConfig): Array<ProviderEntry & { api: string }> {
  return Object.entries(cfg.providers ?? {}).flatMap(([api, list]) =>
    (list ?? []).filter((p) => p.provider_id).map((p) => ({ ...p, api })),
  );
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const SECRET_KEYS = /key|token|password|secret/i;
function masked(config: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config ?? {}).map(([k, v]) => [
      k,
      SECRET_KEYS.test(k) && typeof v === 'string' && v ? '********' : v,
    ]),
  );
}

async function chatCompletion(
  cfg: SimConfig,
  body: Buffer,
  opts: SimLlamaStackOptions,
  res: ServerResponse,
): Promise<void> {
  const request = parseJsonBody(body) as Record<string, unknown>;
  if (!request || typeof request !== 'object' || Array.isArray(request))
    return json(res, 400, { detail: 'the request body must be a JSON object' });
  const models = cfg.registered_resources?.models ?? [];
  const wanted = String(request.model ?? '');
  const model = models.find((m) => `${m.provider_id}/${m.model_id}` === wanted || m.model_id === wanted);
  if (!model)
    return json(res, 400, {
      detail: `Model '${wanted}' not found. Use 'client.models.list()' to list available Models.`,
    });
  const provider = activeProviders(cfg).find((p) => p.api === 'inference' && p.provider_id === model.provider_id);
  const base = provider?.config?.base_url ?? provider?.config?.url;
  if (typeof base !== 'string' || !base)
    return json(res, 400, { detail: `provider ${model.provider_id} has no base_url to forward to` });
  const target = await (opts.resolveUrl ?? ((u) => u))(base.replace(/\/+$/, ''));
  if (!target) return json(res, 502, { detail: `no reachable endpoint serves ${base} (simulated cluster)` });
  const token = provider?.config?.api_token ?? provider?.config?.api_key;
  try {
    const upstream = await fetch(`${target}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(typeof token === 'string' && token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ ...request, model: model.model_id }),
    });
    const text = await upstream.text();
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  } catch (err) {
    json(res, 502, { detail: `forwarding to ${base}: ${(err as Error).message}` });
  }
}

export async function startSimLlamaStackServer(opts: SimLlamaStackOptions): Promise<SimLlamaStackServer> {
  const cfg = (parseYaml(substituteEnv(opts.config, opts.env ?? {})) ?? {}) as SimConfig;
  const handle = async (req: IncomingMessage, res: ServerResponse, path: string, body: Buffer) => {
    if (req.method === 'GET' && path === '/v1/health') return json(res, 200, { status: 'OK' });
    if (req.method === 'GET' && path === '/v1/version') return json(res, 200, { version: 'simulated' });
    if (req.method === 'GET' && path === '/v1/providers') {
      const data = activeProviders(cfg).map((p) => ({
        api: p.api,
        provider_id: p.provider_id,
        provider_type: p.provider_type,
        config: masked(p.config),
        health: { status: 'Not Implemented', message: 'Provider does not implement health check' },
      }));
      return json(res, 200, { data });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const data = (cfg.registered_resources?.models ?? [])
        .filter((m) => m.model_id)
        .map((m) => ({
          id: `${m.provider_id}/${m.model_id}`,
          object: 'model',
          created: 0,
          owned_by: 'llama_stack',
          custom_metadata: {
            model_type: m.model_type ?? 'llm',
            provider_id: m.provider_id,
            provider_resource_id: m.model_id,
          },
        }));
      return json(res, 200, { data });
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletion(cfg, body, opts, res);
    json(res, 404, { detail: 'Not Found' });
  };
  const server: Server = serveGuarded(
    createServer(),
    {
      name: 'the simulated Llama Stack server',
      maxBodyBytes: LLAMA_STACK_MAX_BODY_BYTES,
      sendError: (res, status, detail) => json(res, status, { detail }),
    },
    (req, res, { url, body }) => handle(req, res, url.pathname, body),
  );
  // a port already taken must reject the start (the caller reports it), never crash the process
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

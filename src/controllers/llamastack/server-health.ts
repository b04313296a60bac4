// What the running server says about itself (docs/llamastack.md, "Ready means chat works"): once per rollout
// (a Deployment generation with every replica available), and again every RECHECK while it is not healthy,
// the fetch phase reads /v1/health, /v1/providers and /v1/version over the object's Service. The answers
// feed status (the server version, each provider's health) and the ServerHealthy condition; a server the
// operator cannot reach is reported, not guessed about.

/** where the operator reaches a Service port; undefined when it cannot (nothing ready behind it) */
export type ServiceUrl = (namespace: string, service: string, port: number) => Promise<string | undefined>;

/** the cluster's DNS name of the Service: what an operator running in the cluster uses */
export const clusterServiceUrl: ServiceUrl = async (namespace, service, port) =>
  `http://${service}.${namespace}.svc.cluster.local:${port}`;

export interface ProviderHealth {
  api: string;
  provider_id: string;
  provider_type: string;
  health?: { status: string; message?: string };
}

export type ServerReport =
  | {
      reachable: true;
      healthy: boolean;
      status: string;
      version?: string;
      providers: ProviderHealth[];
      /** when the server was read (RFC 3339) */
      checkedAt: string;
    }
  | { reachable: false; message: string };

const TIMEOUT_MS = 5_000;
/** bodies larger than this are not a Llama Stack answer: refused unread */
const MAX_BODY = 1 << 20;

async function getJson(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  const text = await res.text();
  if (text.length > MAX_BODY) throw new Error(`GET ${path}: answer over ${MAX_BODY} bytes`);
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return JSON.parse(text);
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function providersOf(body: unknown): ProviderHealth[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return [];
  return data.flatMap((p) => {
    if (!p || typeof p !== 'object') return [];
    const o = p as Record<string, unknown>;
    const h = o.health as Record<string, unknown> | undefined;
    const status = str(h?.status);
    const message = str(h?.message);
    return [
      {
        api: str(o.api) ?? '',
        provider_id: str(o.provider_id) ?? '',
        provider_type: str(o.provider_type) ?? '',
        ...(status ? { health: { status, ...(message ? { message: message.slice(0, 500) } : {}) } } : {}),
      },
    ];
  });
}

/** a provider the server itself reports as failing ("Not Implemented" is no failure: it has no check) */
export const unhealthyProviders = (providers: readonly ProviderHealth[]) =>
  providers.filter((p) => p.health && p.health.status !== 'OK' && p.health.status !== 'Not Implemented');

/** reads the three endpoints of the server at `base`; never throws */
export async function probeServer(base: string | undefined): Promise<ServerReport> {
  if (!base) return { reachable: false, message: 'no ready endpoint behind the Service' };
  try {
    const [health, providers, version] = await Promise.all([
      getJson(base, '/v1/health'),
      getJson(base, '/v1/providers'),
      getJson(base, '/v1/version').catch(() => undefined),
    ]);
    const status = str((health as { status?: unknown })?.status) ?? 'unknown';
    const list = providersOf(providers);
    const v = str((version as { version?: unknown } | undefined)?.version);
    return {
      reachable: true,
      healthy: status === 'OK' && unhealthyProviders(list).length === 0,
      status,
      ...(v ? { version: v } : {}),
      providers: list,
      checkedAt: new Date().toISOString(),
    };
  } catch (err) {
    return { reachable: false, message: `${base}: ${(err as Error).message}` };
  }
}

/**
 * The last report per object, kept for as long as the rollout it describes: the key names the Deployment
 * generation and the config it runs, so a new rollout is read again and a resync is not.
 */
export class ServerReports {
  private readonly byObject = new Map<string, { key: string; at: number; report: ServerReport }>();

  constructor(private readonly recheckMs: number) {}

  /** the report for `key`, read again when it is for another rollout or an unhealthy one is old */
  async get(uid: string, key: string, now: number, read: () => Promise<ServerReport>): Promise<ServerReport> {
    const last = this.byObject.get(uid);
    const healthy = last?.report.reachable && last.report.healthy;
    if (last && last.key === key && (healthy || now - last.at < this.recheckMs)) return last.report;
    const report = await read();
    this.byObject.set(uid, { key, at: now, report });
    return report;
  }

  forget(uid: string): void {
    this.byObject.delete(uid);
  }
}

// A client for the Prometheus HTTP API's instant queries (GET /api/v1/query), shared by the autoscaler's
// metrics source and the simulated HPA's external metrics in `modelplane dev`. Over HTTPS it can trust a
// given CA, present a client certificate, check another server name, or (on request only) skip verification.
import { request } from 'node:https';

export interface PrometheusClientOptions {
  /** e.g. http://127.0.0.1:9090 */
  baseUrl: string;
  /** sent as `Authorization: Bearer …` */
  bearerToken?: string;
  timeoutMs?: number;
  tls?: PrometheusTls;
}

/** PEM contents, not paths: the caller reads the files (and names them in its errors) */
export interface PrometheusTls {
  ca?: string;
  cert?: string;
  key?: string;
  /** the name the server's certificate must carry, when it is not the URL's host */
  serverName?: string;
  /** do not verify the server's certificate at all (the caller warns) */
  insecureSkipVerify?: boolean;
}

export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * runs one instant query, evaluated now or at `atSeconds` (Unix seconds); throws with Prometheus's own error
 * text, naming the server and the query
 */
export async function queryPrometheus(
  opts: PrometheusClientOptions,
  promql: string,
  signal?: AbortSignal,
  atSeconds?: number,
): Promise<VectorSample[]> {
  const where = `Prometheus at ${opts.baseUrl}`;
  const at = atSeconds !== undefined && Number.isFinite(atSeconds) ? `&time=${atSeconds}` : '';
  const url = `${opts.baseUrl.replace(/\/$/, '')}/api/v1/query?query=${encodeURIComponent(promql)}${at}`;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 5_000);
  const headers = {
    Accept: 'application/json',
    ...(opts.bearerToken ? { Authorization: `Bearer ${opts.bearerToken}` } : {}),
  };
  const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const res = await (opts.tls && url.startsWith('https:')
    ? getWithTls(url, headers, opts.tls, abort)
    : fetch(url, { headers, signal: abort }).then(async (r) => ({ ok: r.ok, status: r.status, text: await r.text() }))
  ).catch((err: Error) => {
    throw new Error(`${where} is unreachable: ${err.cause instanceof Error ? err.cause.message : err.message}`);
  });
  let body: { status?: string; error?: string; data?: { resultType?: string; result?: VectorSample[] } } | undefined;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  if (!res.ok || body?.status !== 'success')
    throw new Error(`${where} answered ${res.status}: ${body?.error ?? 'no JSON body'} (query ${promql})`);
  if (body.data?.resultType !== 'vector')
    throw new Error(`${where} returned a ${body.data?.resultType} for an instant query (query ${promql})`);
  return body.data.result ?? [];
}

function getWithTls(
  url: string,
  headers: Record<string, string>,
  tls: PrometheusTls,
  signal: AbortSignal,
): Promise<{ ok: boolean; status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers,
        signal,
        ...(tls.ca ? { ca: tls.ca } : {}),
        ...(tls.cert ? { cert: tls.cert } : {}),
        ...(tls.key ? { key: tls.key } : {}),
        ...(tls.serverName ? { servername: tls.serverName } : {}),
        rejectUnauthorized: tls.insecureSkipVerify !== true,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ ok: status >= 200 && status < 300, status, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** a PromQL label value in double quotes */
export function promqlString(s: string): string {
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

// A client for the Prometheus HTTP API's instant queries (GET /api/v1/query), shared by the autoscaler's
// metrics source and the simulated HPA's external metrics in `modelplane dev`.

export interface PrometheusClientOptions {
  /** e.g. http://127.0.0.1:9090 */
  baseUrl: string;
  /** sent as `Authorization: Bearer …` */
  bearerToken?: string;
  timeoutMs?: number;
}

export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** runs one instant query; throws with Prometheus's own error text, naming the server and the query */
export async function queryPrometheus(
  opts: PrometheusClientOptions,
  promql: string,
  signal?: AbortSignal,
): Promise<VectorSample[]> {
  const where = `Prometheus at ${opts.baseUrl}`;
  const url = `${opts.baseUrl.replace(/\/$/, '')}/api/v1/query?query=${encodeURIComponent(promql)}`;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 5_000);
  const res = await fetch(url, {
    headers: {
      Accept: 'application/json',
      ...(opts.bearerToken ? { Authorization: `Bearer ${opts.bearerToken}` } : {}),
    },
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  }).catch((err: Error) => {
    throw new Error(`${where} is unreachable: ${err.cause instanceof Error ? err.cause.message : err.message}`);
  });
  const body = (await res.json().catch(() => undefined)) as
    | { status?: string; error?: string; data?: { resultType?: string; result?: VectorSample[] } }
    | undefined;
  if (!res.ok || body?.status !== 'success')
    throw new Error(`${where} answered ${res.status}: ${body?.error ?? 'no JSON body'} (query ${promql})`);
  if (body.data?.resultType !== 'vector')
    throw new Error(`${where} returned a ${body.data?.resultType} for an instant query (query ${promql})`);
  return body.data.result ?? [];
}

/** a PromQL label value in double quotes */
export function promqlString(s: string): string {
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

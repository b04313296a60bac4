// How the autoscaler authenticates to Prometheus, from the environment variables llm-d's autoscaler reads
// (docs/autoscaling.md, "Metrics in"): a bearer token (PROMETHEUS_BEARER_TOKEN beats PROMETHEUS_TOKEN_PATH),
// a CA to trust, a client certificate, the server name to check, and skipping verification (warned about).
// Files are read once, at start; a missing or unreadable one stops the start with a one-line error naming
// the variable.
import { readFileSync } from 'node:fs';
import type { PrometheusTls } from '@modelplane/runtime/prometheus';

export interface PrometheusAuth {
  bearerToken?: string;
  tls?: PrometheusTls;
}

function readNamed(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const path = env[name];
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `${name}=${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); point it at a PEM file or unset it`,
    );
  }
}

const TRUE = new Set(['true', '1', 'yes']);

export function prometheusAuthFromEnv(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void = (m) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: m })}\n`),
): PrometheusAuth {
  const token = env.PROMETHEUS_BEARER_TOKEN || readNamed(env, 'PROMETHEUS_TOKEN_PATH')?.trim();
  const ca = readNamed(env, 'PROMETHEUS_CA_CERT_PATH');
  const cert = readNamed(env, 'PROMETHEUS_CLIENT_CERT_PATH');
  const key = readNamed(env, 'PROMETHEUS_CLIENT_KEY_PATH');
  if (!!cert !== !!key)
    throw new Error(
      'PROMETHEUS_CLIENT_CERT_PATH and PROMETHEUS_CLIENT_KEY_PATH go together: set both (the client certificate and its key) or neither',
    );
  const insecureSkipVerify = TRUE.has((env.PROMETHEUS_TLS_INSECURE_SKIP_VERIFY ?? '').toLowerCase());
  if (insecureSkipVerify)
    warn(
      'PROMETHEUS_TLS_INSECURE_SKIP_VERIFY is set: the Prometheus server certificate is not verified, so anyone on the path can feed the autoscaler metrics; set PROMETHEUS_CA_CERT_PATH instead',
    );
  const serverName = env.PROMETHEUS_SERVER_NAME || undefined;
  const tls: PrometheusTls = {
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(serverName ? { serverName } : {}),
    ...(insecureSkipVerify ? { insecureSkipVerify } : {}),
  };
  return { ...(token ? { bearerToken: token } : {}), ...(Object.keys(tls).length ? { tls } : {}) };
}

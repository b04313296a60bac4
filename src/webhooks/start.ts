// startWebhookServer: certificates from (or into) the Secret, the HTTPS server, caBundle injection, and a
// periodic check that rotates before expiry and picks up another replica's rotation. Order on a change:
// the Secret is written first (the single source of truth between replicas), then the new trust bundle is
// injected, then this server swaps its serving certificate, so kube-apiserver trusts a certificate before
// it is ever presented. If the API server cannot be reached at start, a short-lived in-memory certificate
// lets the server listen, /readyz says why it is not ready, and the check retries until the Secret works.

import { Cache } from '@modelplane/runtime/cache';
import type { KubeClient } from '@modelplane/runtime/client';
import { type Logger, rootLogger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { Registry } from 'prom-client';
import { CaBundleInjector, type ConfigurationTarget } from './ca-injector.ts';
import { type CertificateConfig, CertificateSecret, type ForcedRotation } from './cert-secret.ts';
import { buildWebhookConfigurations, type ClientTarget } from './configurations.ts';
import { WebhookMetrics } from './metrics.ts';
import { defaultRenewBefore } from './rotation.ts';
import { WebhookHttpServer, type WebhookRegistry } from './server.ts';
import { ServingCertificates } from './serving-certs.ts';

const YEAR_MS = 365 * 86_400_000;

export interface CertificateTimings {
  caLifetimeMs?: number;
  certLifetimeMs?: number;
  /** default a third of the lifetime: renew at two thirds */
  caRenewBeforeMs?: number;
  certRenewBeforeMs?: number;
  /** how often the Secret and the injected bundles are checked (default a quarter of certRenewBefore, at most 10 min) */
  checkIntervalMs?: number;
}

export interface StartWebhookServerOptions {
  client: KubeClient;
  /** default 9443 */
  port?: number;
  /** default 0.0.0.0 */
  host?: string;
  certSecret: { name: string; namespace: string };
  /** the Service kube-apiserver calls; its DNS names go into the serving certificate */
  service: { name: string; namespace: string; port?: number };
  /** configurations whose webhooks get the caBundle: a name (either kind) or { kind, name } */
  webhookConfigurations?: ConfigurationTarget[];
  /** CRDs whose conversion webhook gets the caBundle */
  crds?: string[];
  extraDnsNames?: string[];
  /** IP SANs (default 127.0.0.1 and ::1, for local development) */
  ips?: string[];
  certificates?: CertificateTimings & { caCommonName?: string; organization?: string };
  /** default true; false leaves caBundle to someone else (e.g. cert-manager's injector) */
  injectCaBundle?: boolean;
  /** field manager of the caBundle applies (default modelplane-webhook-certs) */
  fieldManager?: string;
  logger?: Logger;
  /** where the webhook metrics are registered, e.g. a manager's registry (default a private one) */
  registry?: Registry;
  /** informer cache for watching the injection targets (default a private one, stopped on close) */
  cache?: Cache;
  maxBodyBytes?: number;
  handlerTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}

export interface WebhookServerHandle extends WebhookRegistry {
  /** base URL to dial, e.g. https://127.0.0.1:9443 (register it for the Service in the embedded API server) */
  readonly url: string;
  readonly port: number;
  readonly metrics: WebhookMetrics;
  /** the PEM trust bundle (CA certificates) clients should use */
  caPem(): string;
  /** caPem() base64-encoded: a webhook clientConfig.caBundle */
  caBundle(): string;
  servingCertPem(): string;
  /** why the server is not ready (serving a bootstrap certificate), or undefined */
  notReady(): string | undefined;
  /** the webhook configurations for what is registered, pointing at the Service (or `target`) */
  configurations(
    name: string | { mutating: string; validating: string },
    opts?: { target?: ClientTarget; withCaBundle?: boolean },
  ): KubeObject[];
  /** forces a new serving certificate (or, with 'all', a new CA too) now */
  rotateNow(what?: ForcedRotation): Promise<void>;
  /** runs the periodic check now */
  checkNow(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookServer(opts: StartWebhookServerOptions): Promise<WebhookServerHandle> {
  const log = (opts.logger ?? rootLogger()).child({ component: 'webhook-server' });
  const metrics = new WebhookMetrics(opts.registry ?? new Registry());
  const { config, checkIntervalMs } = certificateConfig(opts);
  const certs = new CertificateSecret(opts.client, config, log, metrics);
  const serving = new ServingCertificates(certs, config, log, metrics, checkIntervalMs);
  await serving.load();
  const http = new WebhookHttpServer({
    cert: serving.current.certPem,
    key: serving.current.keyPem,
    metrics,
    logger: log,
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.handlerTimeoutMs !== undefined ? { handlerTimeoutMs: opts.handlerTimeoutMs } : {}),
    ...(opts.keepAliveTimeoutMs !== undefined ? { keepAliveTimeoutMs: opts.keepAliveTimeoutMs } : {}),
    notReady: () => serving.bootstrapReason,
  });
  const host = opts.host ?? '0.0.0.0';
  const port = await http.listen(opts.port ?? 9443, host);
  const url = `https://${dialHost(host)}:${port}`;
  const ownCache = opts.cache === undefined;
  const cache = opts.cache ?? new Cache({ client: opts.client, logger: log });
  const injector =
    (opts.injectCaBundle ?? true)
      ? new CaBundleInjector({
          client: opts.client,
          cache,
          fieldManager: opts.fieldManager ?? 'modelplane-webhook-certs',
          logger: log,
          metrics,
          webhookConfigurations: opts.webhookConfigurations ?? [],
          crds: opts.crds ?? [],
          readTrust: () => certs.readTrust(),
        })
      : undefined;
  await serving.start(http, injector);
  log.info('webhook server listening', {
    url,
    secret: serving.secretName,
    service: `${opts.service.namespace}/${opts.service.name}`,
  });
  return webhookHandle({ url, port, metrics, http, serving, injector, log, service: opts.service }, async () => {
    if (ownCache) await cache.stop();
  });
}

interface WebhookServerParts {
  url: string;
  port: number;
  metrics: WebhookMetrics;
  http: WebhookHttpServer;
  serving: ServingCertificates;
  injector: CaBundleInjector | undefined;
  log: Logger;
  service: StartWebhookServerOptions['service'];
}

/** the handle over a started server: routes registered later, certificates, configurations, close */
function webhookHandle(parts: WebhookServerParts, stopCache: () => Promise<void>): WebhookServerHandle {
  const { url, port, metrics, http, serving, injector, log, service: svc } = parts;
  return {
    url,
    port,
    metrics,
    validating: (path, spec, handler) => http.validating(path, spec, handler),
    mutating: (path, spec, handler) => http.mutating(path, spec, handler),
    conversion: (path, spec, converter) => {
      http.conversion(path, spec, converter);
      // the CRDs it serves get the caBundle too, as if they had been listed in `crds`
      for (const name of spec.crds) {
        injector
          ?.add({ kind: 'CustomResourceDefinition', name })
          .catch((err) => log.warn('could not watch a CRD for caBundle injection', { crd: name, error: err }));
      }
    },
    routes: () => http.routes(),
    caPem: () => serving.current.trustPem,
    caBundle: () => Buffer.from(serving.current.trustPem).toString('base64'),
    servingCertPem: () => serving.served.certPem,
    notReady: () => serving.bootstrapReason,
    configurations: (name, o = {}) =>
      buildWebhookConfigurations(http.routes(), {
        name,
        target: o.target ?? {
          service: { name: svc.name, namespace: svc.namespace, ...(svc.port !== undefined ? { port: svc.port } : {}) },
        },
        ...(o.withCaBundle ? { caBundle: Buffer.from(serving.current.trustPem).toString('base64') } : {}),
      }),
    rotateNow: (what = 'serving') => serving.check(what),
    checkNow: () => serving.check(),
    async close() {
      await serving.stop();
      await stopCache();
      await http.close();
    },
  };
}

/** The certificate settings from the options: names from the Service, lifetimes and renewal points checked. */
function certificateConfig(opts: StartWebhookServerOptions): { config: CertificateConfig; checkIntervalMs: number } {
  const t = opts.certificates ?? {};
  const svc = opts.service;
  const certLifetimeMs = t.certLifetimeMs ?? YEAR_MS;
  const caLifetimeMs = t.caLifetimeMs ?? 10 * YEAR_MS;
  const config: CertificateConfig = {
    secret: opts.certSecret,
    commonName: `${svc.name}.${svc.namespace}.svc`,
    dnsNames: [
      ...new Set([
        `${svc.name}.${svc.namespace}.svc`,
        `${svc.name}.${svc.namespace}.svc.cluster.local`,
        `${svc.name}.${svc.namespace}`,
        svc.name,
        'localhost',
        ...(opts.extraDnsNames ?? []),
      ]),
    ],
    ips: opts.ips ?? ['127.0.0.1', '::1'],
    caCommonName: t.caCommonName ?? `${svc.name}-ca`,
    organization: t.organization ?? 'modelplane',
    caLifetimeMs,
    certLifetimeMs,
    caRenewBeforeMs: t.caRenewBeforeMs ?? defaultRenewBefore(caLifetimeMs),
    certRenewBeforeMs: t.certRenewBeforeMs ?? defaultRenewBefore(certLifetimeMs),
  };
  checkTimings(config);
  const checkIntervalMs =
    t.checkIntervalMs ?? Math.min(600_000, Math.max(100, Math.floor(config.certRenewBeforeMs / 4)));
  return { config, checkIntervalMs };
}

/** the host clients dial for a listening address (a wildcard listens on loopback too) */
function dialHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}

/** lifetimes that would make the server rotate on every check are refused up front */
function checkTimings(c: CertificateConfig): void {
  const fail = (why: string) => {
    throw new Error(`webhook certificates: ${why}`);
  };
  for (const [name, v] of Object.entries({
    caLifetimeMs: c.caLifetimeMs,
    certLifetimeMs: c.certLifetimeMs,
    caRenewBeforeMs: c.caRenewBeforeMs,
    certRenewBeforeMs: c.certRenewBeforeMs,
  })) {
    if (!Number.isFinite(v) || v <= 0) fail(`${name} must be a positive number of milliseconds, got ${v}`);
  }
  if (c.certRenewBeforeMs >= c.certLifetimeMs)
    fail(`certRenewBeforeMs (${c.certRenewBeforeMs}) must be less than certLifetimeMs (${c.certLifetimeMs})`);
  if (c.caRenewBeforeMs >= c.caLifetimeMs)
    fail(`caRenewBeforeMs (${c.caRenewBeforeMs}) must be less than caLifetimeMs (${c.caLifetimeMs})`);
  // a serving certificate issued just before the CA is renewed must still end before the CA does
  if (c.certLifetimeMs > c.caRenewBeforeMs)
    fail(
      `certLifetimeMs (${c.certLifetimeMs}) must not exceed caRenewBeforeMs (${c.caRenewBeforeMs}), or serving certificates would be cut short by the CA's expiry`,
    );
}

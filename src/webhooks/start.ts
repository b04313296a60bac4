// startWebhookServer: certificates from (or into) the Secret, the HTTPS server, caBundle injection, and a
// periodic check that rotates before expiry and picks up another replica's rotation. Order on a change:
// the Secret is written first (the single source of truth between replicas), then the new trust bundle is
// injected, then this server swaps its serving certificate, so kube-apiserver trusts a certificate before
// it is ever presented. If the API server cannot be reached at start, a short-lived in-memory certificate
// lets the server listen, /readyz says why it is not ready, and the check retries until the Secret works.
import { Registry } from 'prom-client';
import { Cache, type KubeClient, type KubeObject, type Logger, rootLogger } from '../kube/index.ts';
import { CaBundleInjector, type ConfigurationTarget } from './ca-injector.ts';
import { type CertificateConfig, CertificateSecret, type ForcedRotation } from './cert-secret.ts';
import { type CertMaterial, generateCA, issueServingCert, validity } from './certs.ts';
import { buildWebhookConfigurations, type ClientTarget } from './configurations.ts';
import { WebhookMetrics } from './metrics.ts';
import { defaultRenewBefore } from './rotation.ts';
import { WebhookHttpServer, type WebhookRegistry } from './server.ts';

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

const BOOTSTRAP_LIFETIME_MS = 86_400_000;

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
  const svc = opts.service;
  log.info('webhook server listening', { url, secret: serving.secretName, service: `${svc.namespace}/${svc.name}` });
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
      if (ownCache) await cache.stop();
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

/**
 * The certificates of one webhook server over time: what the Secret holds (`current`), what the TLS server
 * presents (`served`, which lags while a new CA is not yet trusted everywhere), the caBundle injection and
 * the periodic check. Checks run one at a time.
 */
class ServingCertificates {
  current!: CertMaterial;
  served!: { certPem: string; keyPem: string; caCertPem: string };
  /** why a temporary in-memory certificate is served (the Secret is unusable), or undefined */
  bootstrapReason: string | undefined;
  readonly secretName: string;
  private http: WebhookHttpServer | undefined;
  private injector: CaBundleInjector | undefined;
  private injectorStarted = false;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private failures = 0;

  constructor(
    private readonly certs: CertificateSecret,
    private readonly config: CertificateConfig,
    private readonly log: Logger,
    private readonly metrics: WebhookMetrics,
    private readonly checkIntervalMs: number,
  ) {
    this.secretName = `${config.secret.namespace}/${config.secret.name}`;
  }

  /** the Secret's certificates, or a bootstrap pair (and the reason) when the Secret cannot be used yet */
  async load(): Promise<void> {
    try {
      this.current = (await this.certs.reconcile()).material;
      this.recordExpiry(this.current);
    } catch (err) {
      this.bootstrapReason = `certificate Secret ${this.secretName} unavailable: ${(err as Error).message}`;
      this.log.warn('serving a temporary in-memory certificate until the certificate Secret can be used', {
        secret: this.secretName,
        error: err,
      });
      this.current = await bootstrapMaterial(this.config);
    }
    this.served = { certPem: this.current.certPem, keyPem: this.current.keyPem, caCertPem: this.current.caCertPem };
  }

  /** starts injecting (when the Secret is usable) and the periodic check */
  async start(http: WebhookHttpServer, injector: CaBundleInjector | undefined): Promise<void> {
    this.http = http;
    this.injector = injector;
    try {
      await this.ensureInjector();
    } catch (err) {
      this.log.warn('could not start watching the caBundle targets; retrying with the periodic check', { error: err });
    }
    this.schedule(this.bootstrapReason ? 500 : this.checkIntervalMs);
  }

  /** one check: the Secret reconciled (rotating when due or forced), its trust injected, the certificate used */
  check(force?: ForcedRotation): Promise<void> {
    return this.serialized(async () => {
      await this.use((await this.certs.reconcile(force)).material);
      await this.ensureInjector();
      if (this.injectorStarted) await this.injector!.injectAll();
    });
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.injector?.stop();
    await this.chain;
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(async () => {
      try {
        await this.check();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.log.warn('webhook certificate check failed; retrying', { secret: this.secretName, error: err });
      }
      this.schedule(
        this.failures ? Math.min(this.checkIntervalMs, 500 * 2 ** Math.min(this.failures, 10)) : this.checkIntervalMs,
      );
    }, ms);
    this.timer.unref();
  }

  private async ensureInjector(): Promise<void> {
    if (!this.injector || this.injectorStarted || this.bootstrapReason) return;
    await this.injector.start();
    this.injectorStarted = true;
    await this.injector.setBundle(this.current.trustPem);
  }

  /** trust first, then the certificate that needs it */
  private async use(next: CertMaterial): Promise<void> {
    const trustChanged = next.trustPem !== this.current.trustPem;
    const wasBootstrap = this.bootstrapReason !== undefined;
    this.current = next;
    this.bootstrapReason = undefined;
    if (wasBootstrap) await this.ensureInjector();
    else if (trustChanged && this.injectorStarted) await this.injector!.setBundle(next.trustPem);
    this.recordExpiry(next);
    if (next.certPem === this.served.certPem) return;
    // a certificate from a new CA is presented only once kube-apiserver trusts that CA, unless the
    // certificate served now is no longer valid anyway
    const newCa = next.caCertPem !== this.served.caCertPem;
    if (
      !wasBootstrap &&
      newCa &&
      this.injectorStarted &&
      !this.injector!.allInjected() &&
      validity(this.served.certPem).notAfter.getTime() > Date.now()
    ) {
      this.log.warn('keeping the current serving certificate until the new CA bundle is injected everywhere', {
        secret: this.secretName,
      });
      return;
    }
    this.served = { certPem: next.certPem, keyPem: next.keyPem, caCertPem: next.caCertPem };
    this.http!.setCertificate(next.certPem, next.keyPem);
    this.log.info('serving a new certificate', {
      secret: this.secretName,
      notAfter: validity(next.certPem).notAfter.toISOString(),
    });
  }

  private recordExpiry(m: CertMaterial): void {
    this.metrics.certExpiry.set(
      { secret: this.secretName, certificate: 'ca' },
      validity(m.caCertPem).notAfter.getTime() / 1000,
    );
    this.metrics.certExpiry.set(
      { secret: this.secretName, certificate: 'serving' },
      validity(m.certPem).notAfter.getTime() / 1000,
    );
  }
}

/** a self-signed pair that only lets the server listen; nothing trusts it until the Secret is usable */
async function bootstrapMaterial(c: CertificateConfig): Promise<CertMaterial> {
  const lifetimeMs = Math.min(BOOTSTRAP_LIFETIME_MS, c.certLifetimeMs);
  const ca = await generateCA({ commonName: `${c.caCommonName}-bootstrap`, lifetimeMs });
  const serving = await issueServingCert(ca, {
    commonName: c.commonName,
    dnsNames: c.dnsNames,
    ips: c.ips,
    lifetimeMs,
  });
  return {
    caCertPem: ca.certPem,
    caKeyPem: ca.keyPem,
    trustPem: ca.certPem,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
  };
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

// The serving certificates of one webhook server over time (the order of a rotation is described in start.ts):
// the Secret, the pair the TLS server presents, caBundle injection and the periodic rotation check.
import type { Logger } from '@modelplane/runtime/log';
import type { CaBundleInjector } from './ca-injector.ts';
import type { CertificateConfig, CertificateSecret, ForcedRotation } from './cert-secret.ts';
import { type CertMaterial, generateCA, issueServingCert, validity } from './certs.ts';
import type { WebhookMetrics } from './metrics.ts';
import type { WebhookHttpServer } from './server.ts';

const BOOTSTRAP_LIFETIME_MS = 86_400_000;

/**
 * The certificates of one webhook server over time: what the Secret holds (`current`), what the TLS server
 * presents (`served`, which lags while a new CA is not yet trusted everywhere), the caBundle injection and
 * the periodic check. Checks run one at a time.
 */
export class ServingCertificates {
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

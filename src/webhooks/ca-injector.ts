// Keeps the CA bundle in every webhook entry of the named Mutating/ValidatingWebhookConfigurations and in
// the conversion webhook of the named CRDs. Each target is watched (an informer per object, by name), so a
// configuration created later, or an apply that blanks caBundle, is fixed within a watch event. Writes are
// server-side applies of just the caBundle fields under one field manager: a Helm or kubectl apply of the
// rest of the object neither fights them nor is fought. Nothing is written when the bundle is already there.
import type { Cache, Informer } from '@modelplane/runtime/cache';
import { type CustomResourceDefinition, CustomResourceDefinitions, type KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { type KindRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { WebhookMetrics } from './metrics.ts';

export const MutatingWebhookConfigurations = kindRef<KubeObject>(
  'admissionregistration.k8s.io/v1',
  'MutatingWebhookConfiguration',
);
export const ValidatingWebhookConfigurations = kindRef<KubeObject>(
  'admissionregistration.k8s.io/v1',
  'ValidatingWebhookConfiguration',
);

export type ConfigurationKind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';

/** a configuration name (injected into whichever of the two kinds exists under it) or one kind + name */
export type ConfigurationTarget = string | { kind: ConfigurationKind; name: string };

export interface InjectorOptions {
  client: KubeClient;
  cache: Cache;
  fieldManager: string;
  logger: Logger;
  metrics?: WebhookMetrics;
  webhookConfigurations: ConfigurationTarget[];
  crds: string[];
  /**
   * reads the trust bundle (PEM) from its source of truth, the certificate Secret, before any write: a
   * replica that has not yet seen another's CA rotation then writes the new bundle, never its stale one
   */
  readTrust?: () => Promise<string | undefined>;
  /** first retry after a failed write; doubles up to retryMaxMs */
  retryMs?: number;
  retryMaxMs?: number;
}

interface Target {
  kind: KindRef<KubeObject>;
  name: string;
  informer?: Informer<KubeObject>;
  tail: Promise<void>;
  queued?: Promise<void>;
  failures: number;
  retry?: NodeJS.Timeout;
}

type Obj = Record<string, any>;

export class CaBundleInjector {
  private readonly targets: Target[] = [];
  private bundle: string | undefined;
  private stopped = false;
  private readonly unsubscribe: Array<() => void> = [];
  private started = false;

  constructor(private readonly opts: InjectorOptions) {
    for (const t of opts.webhookConfigurations) this.addTarget(t);
    for (const name of opts.crds) this.addTarget({ kind: 'CustomResourceDefinition', name });
  }

  /** the base64 bundle currently injected (what webhook clientConfig.caBundle should hold) */
  get caBundle(): string | undefined {
    return this.bundle;
  }

  /** adds a target (a no-op when already present); after start() it is watched and injected at once */
  async add(target: ConfigurationTarget | { kind: 'CustomResourceDefinition'; name: string }): Promise<void> {
    for (const t of this.addTarget(target)) if (this.started) await this.watch(t);
  }

  /** watches every target; an object appearing or changing is checked at once */
  async start(): Promise<void> {
    this.started = true;
    for (const t of this.targets) if (!t.informer) await this.watch(t);
    this.opts.cache.start();
  }

  private addTarget(target: ConfigurationTarget | { kind: 'CustomResourceDefinition'; name: string }): Target[] {
    const name = typeof target === 'string' ? target : target.name;
    const kinds =
      typeof target === 'string'
        ? [MutatingWebhookConfigurations, ValidatingWebhookConfigurations]
        : [
            target.kind === 'CustomResourceDefinition'
              ? CustomResourceDefinitions
              : target.kind === 'MutatingWebhookConfiguration'
                ? MutatingWebhookConfigurations
                : ValidatingWebhookConfigurations,
          ];
    const added: Target[] = [];
    for (const kind of kinds) {
      if (this.targets.some((t) => t.kind === kind && t.name === name)) continue;
      const t: Target = { kind, name, tail: Promise.resolve(), failures: 0 };
      this.targets.push(t);
      added.push(t);
    }
    return added;
  }

  private async watch(t: Target): Promise<void> {
    t.informer = await this.opts.cache.informer(t.kind, { fieldSelector: `metadata.name=${t.name}` });
    const check = () => void this.inject(t);
    this.unsubscribe.push(t.informer.addHandler({ add: check, update: check }));
    this.opts.cache.start();
    if (this.bundle !== undefined) await this.inject(t);
  }

  /** sets the PEM trust bundle and injects it everywhere; resolves when every target was tried once */
  async setBundle(trustPem: string): Promise<void> {
    this.bundle = Buffer.from(trustPem).toString('base64');
    await this.injectAll();
  }

  /** whether the last attempt on every target succeeded (or found nothing to do) */
  allInjected(): boolean {
    return this.targets.every((t) => t.failures === 0);
  }

  injectAll(): Promise<void> {
    return Promise.all(this.targets.map((t) => this.inject(t))).then(() => undefined);
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    for (const t of this.targets) clearTimeout(t.retry);
  }

  /** one check per target at a time; requests arriving meanwhile share the next check */
  private inject(t: Target): Promise<void> {
    if (t.queued) return t.queued;
    const run = t.tail.then(async () => {
      t.queued = undefined;
      await this.injectOnce(t);
    });
    t.queued = run;
    t.tail = run;
    return run;
  }

  private async injectOnce(t: Target): Promise<void> {
    const bundle = this.bundle;
    if (this.stopped || bundle === undefined) return;
    const what = `${t.kind.kind} ${t.name}`;
    try {
      const live = t.informer?.hasSynced
        ? t.informer.get(t.name)
        : await this.opts.client.getOrUndefined(t.kind, t.name);
      if (!live) return;
      const patchFor = (b: string) =>
        t.kind === CustomResourceDefinitions
          ? crdPatch(live as CustomResourceDefinition, b)
          : configurationPatch(live, b);
      let patch = patchFor(bundle);
      if (patch !== undefined && this.opts.readTrust) {
        const trust = await this.opts.readTrust();
        const fresh = trust ? Buffer.from(trust).toString('base64') : bundle;
        if (fresh !== this.bundle) this.bundle = fresh;
        patch = patchFor(fresh);
      }
      if (patch === undefined) {
        t.failures = 0;
        return;
      }
      await this.opts.client.apply(patch, { fieldManager: this.opts.fieldManager, force: true });
      t.failures = 0;
      this.opts.metrics?.injections.inc({ kind: t.kind.kind, name: t.name, outcome: 'injected' });
      this.opts.logger.info('injected the webhook CA bundle', { target: what });
    } catch (err) {
      t.failures++;
      this.opts.metrics?.injections.inc({ kind: t.kind.kind, name: t.name, outcome: 'failed' });
      const delay = Math.min((this.opts.retryMs ?? 500) * 2 ** (t.failures - 1), this.opts.retryMaxMs ?? 30_000);
      this.opts.logger.warn('could not inject the webhook CA bundle; retrying', {
        target: what,
        error: err,
        retryInMs: delay,
      });
      clearTimeout(t.retry);
      t.retry = setTimeout(() => void this.inject(t), delay);
      t.retry.unref();
    }
  }
}

/** the apply body setting caBundle on every webhook entry, or undefined when all already carry `bundle` */
export function configurationPatch(live: KubeObject, bundle: string): KubeObject | undefined {
  const webhooks: Obj[] = Array.isArray(live.webhooks)
    ? (live.webhooks as Obj[]).filter((w) => typeof w?.name === 'string')
    : [];
  if (webhooks.every((w) => w.clientConfig?.caBundle === bundle)) return undefined;
  // every entry, not just stale ones: apply drops fields this manager owned but no longer sends
  return {
    apiVersion: live.apiVersion,
    kind: live.kind,
    metadata: { name: live.metadata.name! },
    webhooks: webhooks.map((w) => ({ name: w.name, clientConfig: { caBundle: bundle } })),
  };
}

/** the apply body for a CRD's conversion webhook; undefined when it converts without a webhook or is current */
export function crdPatch(live: CustomResourceDefinition, bundle: string): KubeObject | undefined {
  const conversion = (live.spec as Obj).conversion as Obj | undefined;
  if (conversion?.strategy !== 'Webhook' || !conversion.webhook?.clientConfig) return undefined;
  if (conversion.webhook.clientConfig.caBundle === bundle) return undefined;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: live.metadata.name! },
    spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: bundle } } } },
  };
}

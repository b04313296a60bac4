// The certificate Secret: read it, decide (rotation.ts), and when it must change write the new material
// with optimistic concurrency. Replicas race safely: a create that meets AlreadyExists and an update that
// meets a Conflict both re-read and decide again, so the first writer's certificates win and everyone
// serves them. Keys: ca.crt (trust bundle), ca.key, tls.crt, tls.key, type kubernetes.io/tls.
import { isAlreadyExists, isConflict, type KubeClient, type Secret, Secrets } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import {
  type CertMaterial,
  generateCA,
  inspectCertData,
  issueServingCert,
  splitPemCerts,
  stillTrusted,
} from './certs.ts';
import type { WebhookMetrics } from './metrics.ts';
import { decideRotation, type RotationDecision } from './rotation.ts';

export interface CertificateConfig {
  secret: { name: string; namespace: string };
  /** subject CN of the serving certificate */
  commonName: string;
  dnsNames: string[];
  ips: string[];
  caCommonName: string;
  organization?: string;
  caLifetimeMs: number;
  certLifetimeMs: number;
  caRenewBeforeMs: number;
  certRenewBeforeMs: number;
}

export interface CertReconcileResult {
  material: CertMaterial;
  action: RotationDecision['action'];
  reason?: string;
}

/** `serving` reissues the serving certificate, `all` also replaces the CA */
export type ForcedRotation = 'serving' | 'all';

const KEYS = ['ca.crt', 'ca.key', 'tls.crt', 'tls.key'] as const;
type CertData = Partial<Record<(typeof KEYS)[number], string>>;
const MAX_ATTEMPTS = 8;

function decode(secret: Secret | undefined): CertData {
  const out: CertData = {};
  for (const k of KEYS) {
    const v = secret?.data?.[k];
    if (typeof v === 'string' && v) out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

function materialOf(d: CertData): CertMaterial {
  return {
    caCertPem: splitPemCerts(d['ca.crt']!)[0]!,
    caKeyPem: d['ca.key']!,
    trustPem: d['ca.crt']!,
    certPem: d['tls.crt']!,
    keyPem: d['tls.key']!,
  };
}

export class CertificateSecret {
  private readonly where: string;

  constructor(
    private readonly client: KubeClient,
    readonly config: CertificateConfig,
    private readonly log: Logger,
    private readonly metrics?: WebhookMetrics,
  ) {
    this.where = `${config.secret.namespace}/${config.secret.name}`;
  }

  /** the trust bundle the Secret holds now, or undefined when it holds none */
  async readTrust(): Promise<string | undefined> {
    const secret = await this.client.getOrUndefined(Secrets, this.config.secret.name, this.config.secret.namespace);
    const trust = decode(secret)['ca.crt'];
    return trust && splitPemCerts(trust).length > 0 ? trust : undefined;
  }

  /** makes the Secret hold valid certificates (creating or rotating as needed) and returns them */
  async reconcile(force?: ForcedRotation): Promise<CertReconcileResult> {
    let forced = force;
    let forcedAgainst: string | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = new Date();
      const secret = await this.client.getOrUndefined(Secrets, this.config.secret.name, this.config.secret.namespace);
      const data = decode(secret);
      // a forced rotation is satisfied by anyone's rotation: stop forcing once the serving cert changed
      if (forced) {
        forcedAgainst ??= data['tls.crt'] ?? '';
        if ((data['tls.crt'] ?? '') !== forcedAgainst) forced = undefined;
      }
      let decision = decideRotation(inspectCertData(data, this.config), this.config, now);
      if (forced === 'all' && decision.action !== 'regenerate')
        decision = { action: 'regenerate', reason: 'a new CA was requested' };
      else if (forced === 'serving' && decision.action === 'keep')
        decision = { action: 'issue-serving', reason: 'a new serving certificate was requested' };
      if (decision.action === 'keep') return { material: materialOf(data), action: 'keep' };

      const next = await this.build(decision, data, now);
      try {
        await this.write(secret, next);
      } catch (err) {
        if (isAlreadyExists(err) || isConflict(err)) {
          this.log.debug('certificate Secret changed under us; reading it again', { secret: this.where, attempt });
          continue;
        }
        throw err;
      }
      this.metrics?.rotations.inc({ secret: this.where, action: decision.action });
      this.log.info(secret ? 'rotated webhook certificates' : 'created webhook certificate Secret', {
        secret: this.where,
        action: decision.action,
        reason: decision.reason,
      });
      return { material: materialOf(next), action: decision.action, reason: decision.reason };
    }
    throw new Error(`certificate Secret ${this.where}: still conflicting after ${MAX_ATTEMPTS} attempts to write it`);
  }

  private async build(
    decision: Exclude<RotationDecision, { action: 'keep' }>,
    old: CertData,
    now: Date,
  ): Promise<Required<CertData>> {
    const c = this.config;
    let ca: { certPem: string; keyPem: string };
    let trust: string;
    if (decision.action === 'regenerate') {
      ca = await generateCA({
        commonName: c.caCommonName,
        ...(c.organization ? { organization: c.organization } : {}),
        lifetimeMs: c.caLifetimeMs,
        now,
      });
      // the old CA stays trusted next to the new one while it is valid, so serving certificates it signed
      // (still served by replicas that have not reloaded yet) keep verifying
      trust = [ca.certPem, ...stillTrusted(old['ca.crt'] ?? '', now)].join('');
    } else {
      ca = { certPem: splitPemCerts(old['ca.crt']!)[0]!, keyPem: old['ca.key']! };
      trust = [ca.certPem, ...stillTrusted(old['ca.crt']!, now).filter((b) => b !== ca.certPem)].join('');
    }
    const serving = await issueServingCert(ca, {
      commonName: c.commonName,
      dnsNames: c.dnsNames,
      ips: c.ips,
      lifetimeMs: c.certLifetimeMs,
      now,
    });
    return { 'ca.crt': trust, 'ca.key': ca.keyPem, 'tls.crt': serving.certPem, 'tls.key': serving.keyPem };
  }

  private async write(existing: Secret | undefined, data: Required<CertData>): Promise<void> {
    const encoded: Record<string, string> = {};
    for (const k of KEYS) encoded[k] = Buffer.from(data[k]).toString('base64');
    if (!existing) {
      await this.client.create<Secret>({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: this.config.secret.name,
          namespace: this.config.secret.namespace,
          labels: {
            'app.kubernetes.io/managed-by': 'modelplane',
            'app.kubernetes.io/component': 'webhook-certificates',
          },
        },
        type: 'kubernetes.io/tls',
        data: encoded,
      });
      return;
    }
    if (existing.type && existing.type !== 'kubernetes.io/tls') {
      this.log.warn(
        'certificate Secret is not of type kubernetes.io/tls (the type cannot change); writing the keys anyway',
        { secret: this.where, type: existing.type },
      );
    }
    // the resourceVersion read above makes this fail with a Conflict if another replica wrote first
    const { stringData: _stringData, ...rest } = existing;
    await this.client.update<Secret>({ ...rest, data: { ...(existing.data ?? {}), ...encoded } });
  }
}

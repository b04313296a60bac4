// The webhook's PKI: a private CA and a serving certificate it signs (ECDSA P-256, accepted by Go's and
// Node's TLS stacks and quick to generate), and the inspection of what a Secret holds, which the rotation
// decision (rotation.ts) is made from. Generation uses @peculiar/x509 over node's webcrypto; checks use
// node:crypto's X509Certificate, the same code that verifies peers in node's TLS.
import 'reflect-metadata';
import { createPrivateKey, X509Certificate as NodeX509, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// @peculiar/x509 types its provider with the DOM Crypto type, which node's webcrypto implements
x509.cryptoProvider.set(webcrypto as any);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const SERVER_AUTH_OID = '1.3.6.1.5.5.7.3.1';
/** certificates start this long before they are made, so a peer whose clock is a little behind accepts them */
const BACKDATE_MS = 60_000;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** What the Secret holds: `ca.crt` is the trust bundle (the signing CA first, then older CAs still trusted). */
export interface CertMaterial {
  caCertPem: string;
  caKeyPem: string;
  trustPem: string;
  certPem: string;
  keyPem: string;
}

export interface CaOptions {
  commonName: string;
  organization?: string;
  lifetimeMs: number;
  now?: Date;
}

export interface ServingOptions {
  commonName: string;
  dnsNames: string[];
  ips: string[];
  lifetimeMs: number;
  now?: Date;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** a positive 128-bit serial (the leading nibble kept below 8 so DER does not read it as negative) */
function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
}

async function exportKey(key: CryptoKey): Promise<string> {
  return pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', key));
}

async function importKey(keyPem: string): Promise<CryptoKey> {
  // re-encode through node so PKCS#1/SEC1 keys written by other tools import as PKCS#8
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return (await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign'])) as unknown as CryptoKey;
}

function escapeDn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1');
}

export async function generateCA(opts: CaOptions): Promise<KeyPairPem> {
  const keys = await newKeys();
  const now = (opts.now ?? new Date()).getTime();
  const name = `CN=${escapeDn(opts.commonName)}${opts.organization ? `, O=${escapeDn(opts.organization)}` : ''}`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + opts.lifetimeMs),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportKey(keys.privateKey) };
}

/** a serving certificate signed by `ca`; it never outlives the CA */
export async function issueServingCert(ca: KeyPairPem, opts: ServingOptions): Promise<KeyPairPem> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const keys = await newKeys();
  const now = (opts.now ?? new Date()).getTime();
  const notAfter = Math.min(now + opts.lifetimeMs, caCert.notAfter.getTime());
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${escapeDn(opts.commonName)}`,
    issuer: caCert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...opts.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...opts.ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportKey(keys.privateKey) };
}

/** every PEM certificate block in `text`, in order */
export function splitPemCerts(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((b) => b + '\n') ?? [];
}

export interface CertValidity {
  notBefore: Date;
  notAfter: Date;
}

export function validity(certPem: string): CertValidity {
  const c = new x509.X509Certificate(certPem);
  return { notBefore: c.notBefore, notAfter: c.notAfter };
}

export interface CaFacts extends CertValidity {
  isCA: boolean;
  keyMatches: boolean;
}

export interface ServingFacts extends CertValidity {
  keyMatches: boolean;
  signedByCA: boolean;
  serverAuth: boolean;
  /** required DNS names and IPs the certificate does not cover */
  missingNames: string[];
}

/** What a certificate Secret holds, judged; a string says why a part is unusable. */
export interface SecretFacts {
  ca: CaFacts | string;
  serving: ServingFacts | string;
}

export interface Requirements {
  dnsNames: string[];
  ips: string[];
}

function keyMatches(cert: NodeX509, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** `data` holds PEM text (already base64-decoded): ca.crt, ca.key, tls.crt, tls.key */
export function inspectCertData(
  data: Partial<Record<'ca.crt' | 'ca.key' | 'tls.crt' | 'tls.key', string>>,
  required: Requirements,
): SecretFacts {
  let caCert: NodeX509 | undefined;
  let ca: CaFacts | string;
  const caPem = splitPemCerts(data['ca.crt'] ?? '')[0];
  if (!caPem) ca = 'ca.crt is missing or holds no PEM certificate';
  else if (!data['ca.key']) ca = 'ca.key is missing';
  else {
    try {
      caCert = new NodeX509(caPem);
      ca = { ...validity(caPem), isCA: caCert.ca, keyMatches: keyMatches(caCert, data['ca.key']) };
    } catch (err) {
      ca = `ca.crt does not parse: ${(err as Error).message}`;
    }
  }
  let serving: ServingFacts | string;
  const certPem = splitPemCerts(data['tls.crt'] ?? '')[0];
  if (!certPem) serving = 'tls.crt is missing or holds no PEM certificate';
  else if (!data['tls.key']) serving = 'tls.key is missing';
  else {
    try {
      const cert = new NodeX509(certPem);
      const missing = [
        ...required.dnsNames.filter((n) => cert.checkHost(n, { wildcards: false }) === undefined),
        ...required.ips.filter((ip) => cert.checkIP(ip) === undefined),
      ];
      serving = {
        ...validity(certPem),
        keyMatches: keyMatches(cert, data['tls.key']),
        signedByCA: caCert !== undefined && cert.checkIssued(caCert) && cert.verify(caCert.publicKey),
        serverAuth: (cert.keyUsage ?? []).includes(SERVER_AUTH_OID),
        missingNames: missing,
      };
    } catch (err) {
      serving = `tls.crt does not parse: ${(err as Error).message}`;
    }
  }
  return { ca, serving };
}

/** the CA certificates of an old trust bundle worth keeping next to a new CA: CAs that have not expired */
export function stillTrusted(trustPem: string, now: Date, limit = 3): string[] {
  const out: string[] = [];
  for (const block of splitPemCerts(trustPem)) {
    try {
      const c = new NodeX509(block);
      if (c.ca && validity(block).notAfter.getTime() > now.getTime()) out.push(block);
    } catch {
      // an unparseable entry is dropped from the bundle rather than carried forward
    }
    if (out.length >= limit) break;
  }
  return out;
}

// A private CA and a serving certificate for the API server (ECDSA P-256: fast to generate, accepted
import 'reflect-metadata';
// by Go's and Node's TLS stacks). Also used to mint certificates for webhook servers in tests.
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
// @peculiar/x509 types the provider with the DOM Crypto type, which Node's webcrypto implements
x509.cryptoProvider.set(webcrypto as any);

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
  /** issues a serving certificate for the given DNS names and IP addresses; `organizations` become O= (a client certificate's groups) */
  issue(
    commonName: string,
    dnsNames: string[],
    ips: string[],
    days?: number,
    organizations?: string[],
  ): Promise<{ certPem: string; keyPem: string }>;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

async function importKey(keyPem: string): Promise<CryptoKey> {
  const der = Buffer.from(keyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return (await webcrypto.subtle.importKey('pkcs8', der, alg, true, ['sign'])) as unknown as CryptoKey;
}

/** Loads a CA from PEMs (persisted with --data-dir) or creates a new one. */
export async function createCA(
  existing?: { certPem: string; keyPem: string },
  commonName = 'modelplane-ca',
): Promise<CertificateAuthority> {
  let certPem: string;
  let keyPem: string;
  let caKey: CryptoKey;
  let caCert: x509.X509Certificate;
  if (existing) {
    certPem = existing.certPem;
    keyPem = existing.keyPem;
    caKey = await importKey(keyPem);
    caCert = new x509.X509Certificate(certPem);
  } else {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
    const now = new Date();
    caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${commonName}`,
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + 10 * 365 * 86400_000),
      signingAlgorithm: alg,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    caKey = keys.privateKey;
    certPem = caCert.toString('pem') + '\n';
    keyPem = pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  }
  return {
    certPem,
    keyPem,
    async issue(cn, dnsNames, ips, days = 365, organizations = []) {
      const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
      const now = new Date();
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: [`CN=${cn}`, ...organizations.map((o) => `O=${o}`)].join(', '),
        issuer: caCert.subject,
        notBefore: new Date(now.getTime() - 60_000),
        notAfter: new Date(now.getTime() + days * 86400_000),
        signingAlgorithm: alg,
        publicKey: keys.publicKey,
        signingKey: caKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
          new x509.SubjectAlternativeNameExtension([
            ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
            ...ips.map((value) => ({ type: 'ip' as const, value })),
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(caCert),
        ],
      });
      return {
        certPem: cert.toString('pem') + '\n',
        keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
      };
    },
  };
}

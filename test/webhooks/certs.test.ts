// The PKI and the rotation decision: the serving certificate covers the Service names and dev IPs,
// chains to the CA, is for serverAuth and never outlives the CA; inspection finds every defect; and the
// decision table says, for each state of the Secret and each moment, keep / reissue / regenerate.
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  type CaFacts,
  decideRotation,
  generateCA,
  inspectCertData,
  issueServingCert,
  type RotationPolicy,
  type SecretFacts,
  type ServingFacts,
  splitPemCerts,
  stillTrusted,
} from '../../src/webhooks/index.ts';

const DNS = ['svc.ns.svc', 'svc.ns.svc.cluster.local', 'localhost'];
const IPS = ['127.0.0.1', '::1'];
const HOUR = 3_600_000;

describe('generated certificates', async () => {
  const ca = await generateCA({ commonName: 'test-ca', organization: 'modelplane', lifetimeMs: 10 * HOUR });
  const serving = await issueServingCert(ca, { commonName: 'svc.ns.svc', dnsNames: DNS, ips: IPS, lifetimeMs: HOUR });
  const caCert = new X509Certificate(ca.certPem);
  const cert = new X509Certificate(serving.certPem);

  it('the CA is a CA named as asked', () => {
    assert.equal(caCert.ca, true);
    assert.equal(caCert.subject, 'CN=test-ca\nO=modelplane');
    assert.ok(caCert.verify(caCert.publicKey), 'self-signed');
  });

  it('the serving certificate chains to the CA and is for serverAuth only', () => {
    assert.equal(cert.ca, false);
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.ok(cert.checkPrivateKey(createPrivateKey(serving.keyPem)));
  });

  it('covers the Service names and the dev IPs, and nothing else', () => {
    assert.equal(
      cert.subjectAltName,
      'DNS:svc.ns.svc, DNS:svc.ns.svc.cluster.local, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    assert.equal(cert.checkHost('other.ns.svc'), undefined);
  });

  it('is backdated a minute and never outlives its CA', async () => {
    const notBefore = new Date(cert.validFrom).getTime();
    assert.ok(Date.now() - notBefore >= 59_000 && Date.now() - notBefore < 70_000);
    const long = new X509Certificate(
      (await issueServingCert(ca, { commonName: 'x', dnsNames: DNS, ips: [], lifetimeMs: 100 * HOUR })).certPem,
    );
    assert.equal(long.validTo, caCert.validTo);
  });

  it('inspection of a good Secret finds nothing wrong', () => {
    const facts = inspectCertData(
      { 'ca.crt': ca.certPem, 'ca.key': ca.keyPem, 'tls.crt': serving.certPem, 'tls.key': serving.keyPem },
      { dnsNames: DNS, ips: IPS },
    );
    assert.equal(typeof facts.ca, 'object');
    assert.deepEqual(
      { ...(facts.serving as ServingFacts), notBefore: 0, notAfter: 0 },
      { notBefore: 0, notAfter: 0, keyMatches: true, signedByCA: true, serverAuth: true, missingNames: [] },
    );
    assert.equal(
      decideRotation(facts, { caRenewBeforeMs: HOUR, certRenewBeforeMs: HOUR / 3 }, new Date()).action,
      'keep',
    );
  });

  it('inspection finds each defect', async () => {
    const other = await generateCA({ commonName: 'other', lifetimeMs: HOUR });
    const foreign = await issueServingCert(other, {
      commonName: 'svc.ns.svc',
      dnsNames: DNS,
      ips: IPS,
      lifetimeMs: HOUR,
    });
    const good = { 'ca.crt': ca.certPem, 'ca.key': ca.keyPem, 'tls.crt': serving.certPem, 'tls.key': serving.keyPem };
    const req = { dnsNames: DNS, ips: IPS };
    assert.equal(
      inspectCertData({ ...good, 'ca.crt': undefined }, req).ca,
      'ca.crt is missing or holds no PEM certificate',
    );
    assert.equal(inspectCertData({ ...good, 'ca.key': undefined }, req).ca, 'ca.key is missing');
    assert.equal((inspectCertData({ ...good, 'ca.key': other.keyPem }, req).ca as CaFacts).keyMatches, false);
    assert.equal((inspectCertData({ ...good, 'ca.crt': serving.certPem }, req).ca as CaFacts).isCA, false);
    assert.match(
      inspectCertData({ ...good, 'ca.crt': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, req)
        .ca as string,
      /^ca.crt does not parse/,
    );
    assert.equal(
      inspectCertData({ ...good, 'tls.crt': 'garbage' }, req).serving,
      'tls.crt is missing or holds no PEM certificate',
    );
    assert.equal(
      (inspectCertData({ ...good, 'tls.crt': foreign.certPem, 'tls.key': foreign.keyPem }, req).serving as ServingFacts)
        .signedByCA,
      false,
    );
    assert.equal(
      (inspectCertData({ ...good, 'tls.key': foreign.keyPem }, req).serving as ServingFacts).keyMatches,
      false,
    );
    assert.deepEqual(
      (inspectCertData(good, { dnsNames: [...DNS, 'svc.other.svc'], ips: ['10.0.0.1'] }).serving as ServingFacts)
        .missingNames,
      ['svc.other.svc', '10.0.0.1'],
    );
  });

  it('a renewed bundle keeps unexpired CAs and drops expired ones', async () => {
    const expired = await generateCA({ commonName: 'old', lifetimeMs: 1_000, now: new Date(Date.now() - HOUR) });
    const kept = stillTrusted(ca.certPem + expired.certPem + serving.certPem, new Date());
    assert.deepEqual(kept, [ca.certPem]);
    assert.equal(splitPemCerts(ca.certPem + serving.certPem).length, 2);
  });
});

describe('decideRotation', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
  const policy: RotationPolicy = { caRenewBeforeMs: 30 * 24 * HOUR, certRenewBeforeMs: 8 * HOUR };
  const ca = (o: Partial<CaFacts> = {}): CaFacts => ({
    notBefore: at(-HOUR),
    notAfter: at(365 * 24 * HOUR),
    isCA: true,
    keyMatches: true,
    ...o,
  });
  const serving = (o: Partial<ServingFacts> = {}): ServingFacts => ({
    notBefore: at(-HOUR),
    notAfter: at(24 * HOUR),
    keyMatches: true,
    signedByCA: true,
    serverAuth: true,
    missingNames: [],
    ...o,
  });
  const table: Array<[string, SecretFacts, string, RegExp?]> = [
    ['all good', { ca: ca(), serving: serving() }, 'keep'],
    [
      'no Secret / no CA',
      { ca: 'ca.crt is missing', serving: 'tls.crt is missing' },
      'regenerate',
      /ca.crt is missing/,
    ],
    ['CA flag missing', { ca: ca({ isCA: false }), serving: serving() }, 'regenerate', /not a CA/],
    ['CA key mismatch', { ca: ca({ keyMatches: false }), serving: serving() }, 'regenerate', /ca.key does not belong/],
    ['CA from the future', { ca: ca({ notBefore: at(HOUR) }), serving: serving() }, 'regenerate', /not valid before/],
    ['CA expired', { ca: ca({ notAfter: at(-1) }), serving: serving() }, 'regenerate', /renewal window/],
    [
      'CA inside its renewal window',
      { ca: ca({ notAfter: at(29 * 24 * HOUR) }), serving: serving() },
      'regenerate',
      /renewal window/,
    ],
    ['CA just outside its window', { ca: ca({ notAfter: at(31 * 24 * HOUR) }), serving: serving() }, 'keep'],
    ['CA bad and serving bad: CA wins', { ca: ca({ isCA: false }), serving: 'tls.crt is missing' }, 'regenerate'],
    ['serving missing', { ca: ca(), serving: 'tls.crt is missing' }, 'issue-serving', /tls.crt is missing/],
    [
      'serving from another CA',
      { ca: ca(), serving: serving({ signedByCA: false }) },
      'issue-serving',
      /not signed by the CA/,
    ],
    [
      'serving key mismatch',
      { ca: ca(), serving: serving({ keyMatches: false }) },
      'issue-serving',
      /tls.key does not belong/,
    ],
    [
      'serving without serverAuth',
      { ca: ca(), serving: serving({ serverAuth: false }) },
      'issue-serving',
      /serverAuth/,
    ],
    [
      'serving lacks a name',
      { ca: ca(), serving: serving({ missingNames: ['svc.ns.svc'] }) },
      'issue-serving',
      /does not cover svc.ns.svc/,
    ],
    [
      'serving from the future',
      { ca: ca(), serving: serving({ notBefore: at(1000) }) },
      'issue-serving',
      /not valid before/,
    ],
    ['serving expired', { ca: ca(), serving: serving({ notAfter: at(-1) }) }, 'issue-serving', /renewal window/],
    ['serving exactly at renewal', { ca: ca(), serving: serving({ notAfter: at(8 * HOUR) }) }, 'issue-serving'],
    ['serving a millisecond before renewal', { ca: ca(), serving: serving({ notAfter: at(8 * HOUR + 1) }) }, 'keep'],
  ];
  for (const [name, facts, action, reason] of table) {
    it(`${name} → ${action}`, () => {
      const d = decideRotation(facts, policy, now);
      assert.equal(d.action, action);
      if (reason) assert.match((d as { reason: string }).reason, reason);
    });
  }
});

// When the certificate Secret must be rewritten, as a pure function of what it holds and the time, so the
// whole decision table is tested without clocks or an API server. A CA problem regenerates everything;
// a serving-certificate problem only reissues the serving certificate under the same CA, which needs no
// caBundle change and so cannot fail a single admission call.
import type { SecretFacts } from './certs.ts';

export interface RotationPolicy {
  /** regenerate the CA when it has less than this left */
  caRenewBeforeMs: number;
  /** reissue the serving certificate when it has less than this left */
  certRenewBeforeMs: number;
}

export type RotationDecision =
  | { action: 'keep' }
  | { action: 'issue-serving'; reason: string }
  | { action: 'regenerate'; reason: string };

const iso = (d: Date) => d.toISOString();

export function decideRotation(facts: SecretFacts, policy: RotationPolicy, now: Date): RotationDecision {
  const t = now.getTime();
  const ca = facts.ca;
  if (typeof ca === 'string') return { action: 'regenerate', reason: ca };
  if (!ca.isCA) return { action: 'regenerate', reason: 'ca.crt is not a CA certificate (basicConstraints CA:false)' };
  if (!ca.keyMatches) return { action: 'regenerate', reason: 'ca.key does not belong to ca.crt' };
  if (t < ca.notBefore.getTime())
    return { action: 'regenerate', reason: `the CA is not valid before ${iso(ca.notBefore)}` };
  if (t >= ca.notAfter.getTime() - policy.caRenewBeforeMs)
    return { action: 'regenerate', reason: `the CA expires at ${iso(ca.notAfter)}, within the renewal window` };
  const s = facts.serving;
  if (typeof s === 'string') return { action: 'issue-serving', reason: s };
  if (!s.signedByCA) return { action: 'issue-serving', reason: 'tls.crt is not signed by the CA in ca.crt' };
  if (!s.keyMatches) return { action: 'issue-serving', reason: 'tls.key does not belong to tls.crt' };
  if (!s.serverAuth) return { action: 'issue-serving', reason: 'tls.crt lacks the serverAuth extended key usage' };
  if (s.missingNames.length)
    return { action: 'issue-serving', reason: `tls.crt does not cover ${s.missingNames.join(', ')}` };
  if (t < s.notBefore.getTime())
    return { action: 'issue-serving', reason: `tls.crt is not valid before ${iso(s.notBefore)}` };
  if (t >= s.notAfter.getTime() - policy.certRenewBeforeMs)
    return { action: 'issue-serving', reason: `tls.crt expires at ${iso(s.notAfter)}, within the renewal window` };
  return { action: 'keep' };
}

/** renew at two thirds of the lifetime unless told otherwise */
export function defaultRenewBefore(lifetimeMs: number): number {
  return Math.floor(lifetimeMs / 3);
}

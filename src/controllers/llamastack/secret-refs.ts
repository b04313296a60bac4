// Every Secret reference in a spec, with the field that makes it, for the controller's SecretsResolved
// check and the secret-value hash that rolls the pods when a referenced value changes (not when only the
// Secret's labels do). Values are hashed, never copied anywhere.
import { createHash } from 'node:crypto';
import type { Secret } from '@modelplane/runtime/client';
import { type LlamaStackDistributionSpec, PROVIDER_SECTIONS } from '../../apis/llamastack/index.ts';

export interface SecretRef {
  secret: string;
  key: string;
  field: string;
}

export function secretRefsOf(spec: LlamaStackDistributionSpec): SecretRef[] {
  const out: SecretRef[] = [];
  for (const section of PROVIDER_SECTIONS) {
    (spec.providers?.[section] ?? []).forEach((p, i) => {
      const field = `spec.providers.${section}[${i}]`;
      if (p.apiKey) out.push({ secret: p.apiKey.name, key: p.apiKey.key, field: `${field}.apiKey` });
      for (const k of Object.keys(p.secretRefs ?? {}).sort())
        out.push({ secret: p.secretRefs![k]!.name, key: p.secretRefs![k]!.key, field: `${field}.secretRefs.${k}` });
    });
  }
  const kv = spec.storage?.kv;
  if (kv?.type === 'redis' && kv.password)
    out.push({ secret: kv.password.name, key: kv.password.key, field: 'spec.storage.kv.password' });
  const sql = spec.storage?.sql;
  if (sql?.type === 'postgres' && sql.connectionString)
    out.push({
      secret: sql.connectionString.name,
      key: sql.connectionString.key,
      field: 'spec.storage.sql.connectionString',
    });
  return out;
}

export type SecretProblem = { reason: 'SecretNotFound' | 'SecretKeyMissing'; message: string; field: string };

/** the first problem per reference, in spec order, with docs/llamastack.md's message */
export function secretProblems(
  refs: readonly SecretRef[],
  secrets: ReadonlyMap<string, Secret | undefined>,
  namespace: string,
): SecretProblem[] {
  const out: SecretProblem[] = [];
  for (const r of refs) {
    const s = secrets.get(r.secret);
    if (!s)
      out.push({
        reason: 'SecretNotFound',
        field: r.field,
        message: `Secret "${r.secret}" not found in namespace "${namespace}". Referenced by: ${r.field}`,
      });
    else if (s.data?.[r.key] === undefined)
      out.push({
        reason: 'SecretKeyMissing',
        field: r.field,
        message: `Secret "${r.secret}" in namespace "${namespace}" has no key "${r.key}". Referenced by: ${r.field}`,
      });
  }
  return out;
}

/** a digest of the referenced values (each value hashed first), so a changed value changes the pod template */
export function secretValuesHash(
  refs: readonly SecretRef[],
  secrets: ReadonlyMap<string, Secret | undefined>,
): string | undefined {
  if (refs.length === 0) return undefined;
  const entries = [...new Set(refs.map((r) => `${r.secret}/${r.key}`))].sort().map((ref) => {
    const [secret, key] = [ref.slice(0, ref.indexOf('/')), ref.slice(ref.indexOf('/') + 1)];
    const value = secrets.get(secret)?.data?.[key] ?? '';
    return `${ref}@${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
  });
  return createHash('sha256').update(entries.join('\n')).digest('hex').slice(0, 16);
}

// The Secrets an AIM object names, and what a download Job recorded of them (docs/aim.md, "Secrets"). Pure:
// planners use it; secret-references.ts watches the Secrets it names.
import type { KubeObject, ObjectKey } from '@modelplane/runtime/meta';

/** on a download Job: the resourceVersion of each Secret its artifact named when the Job was created */
export const SECRET_VERSIONS_ANNOTATION = 'aim.eai.amd.com/secret-versions';

/** what the process knows of a Secret's current version (the watch of secret-references.ts) */
export interface SecretVersionSource {
  /** undefined while unknown, absent or not watched */
  resourceVersion(namespace: string, name: string): string | undefined;
}

interface SecretNamingSpec {
  imagePullSecrets?: ReadonlyArray<{ name?: string }>;
  env?: ReadonlyArray<{ valueFrom?: { secretKeyRef?: { name?: string } } }>;
}

/**
 * A name a Secret can have (a DNS-1123 subdomain): anything else names no Secret, and must never reach a field
 * selector (a comma would add a requirement of its own)
 */
function isSecretName(n: unknown): n is string {
  return typeof n === 'string' && n.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n);
}

/**
 * The Secrets `obj` names in spec.imagePullSecrets and spec.env[].valueFrom.secretKeyRef: in its own
 * namespace, or the operator's for cluster-scoped kinds (where their pull secrets live).
 */
export function referencedSecrets(obj: KubeObject, operatorNamespace: string): ObjectKey[] {
  const spec = (obj as { spec?: SecretNamingSpec }).spec;
  const namespace = obj.metadata.namespace || operatorNamespace;
  // the schema makes these lists; an informer handler still never throws on what it was given
  const list = <T>(v: readonly T[] | undefined): readonly T[] => (Array.isArray(v) ? v : []);
  const names = [
    ...list(spec?.imagePullSecrets).map((s) => s?.name),
    ...list(spec?.env).map((e) => e?.valueFrom?.secretKeyRef?.name),
  ];
  return names.filter(isSecretName).map((name) => ({ namespace, name }));
}

/** name → resourceVersion of every Secret `obj` names ("" while the version is unknown or the Secret absent) */
export function secretVersionsNow(
  obj: KubeObject,
  operatorNamespace: string,
  source: SecretVersionSource | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source) return out;
  for (const k of referencedSecrets(obj, operatorNamespace))
    out[k.name] = source.resourceVersion(k.namespace, k.name) ?? '';
  return out;
}

/** the annotation value: sorted by name, so equal versions are equal text */
export function secretVersionsAnnotation(versions: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(versions).sort(([a], [b]) => a.localeCompare(b))));
}

/**
 * Has a Secret the Job's artifact names been created or changed since the Job was created? Only Secrets whose
 * version is known now count (an unknown or absent one says nothing); one the Job recorded as unknown or
 * absent and that has a version now counts. A Job without the record (older, or naming no Secret) or with a
 * bad one never counts as changed.
 */
export function secretsChangedSince(job: KubeObject | undefined, now: Readonly<Record<string, string>>): boolean {
  const raw = job?.metadata.annotations?.[SECRET_VERSIONS_ANNOTATION];
  if (raw === undefined) return false;
  let then: unknown;
  try {
    then = JSON.parse(raw);
  } catch {
    return false;
  }
  if (typeof then !== 'object' || then === null || Array.isArray(then)) return false;
  const recorded = then as Record<string, unknown>;
  return Object.entries(now).some(([name, rv]) => rv !== '' && recorded[name] !== rv);
}

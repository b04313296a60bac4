// The CA bundle the server trusts for outbound TLS (docs/llamastack.md, "What the controller creates"): the certificates
// of every key the object names in its own namespace's ConfigMap, checked (each PEM block must be an X.509
// certificate that parses) and merged into one file, `ca-bundle.crt` of the managed ConfigMap
// `<cr>-ca-bundle`, which SSL_CERT_FILE points at. Pure: the admission webhook and the planner share it.
import { X509Certificate } from 'node:crypto';
import type { ConfigMap } from '@modelplane/runtime/client';

export const CA_BUNDLE_KEY = 'ca-bundle.crt';
export const DEFAULT_CA_KEYS: readonly string[] = [CA_BUNDLE_KEY];
const FIELD = 'spec.networking.tls.caBundle';

export interface CaBundleRef {
  configMapName: string;
  configMapNamespace?: string;
  configMapKeys?: string[];
}

export type CaBundleOutcome =
  | { ok: true; pem: string; certificates: number }
  | { ok: false; reason: 'ReferenceNotFound' | 'InvalidCABundle'; field: string; message: string };

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** the certificates of one key, or why the key cannot be used */
function certificatesOf(text: string, where: string): { pems: string[] } | { error: string } {
  const pems: string[] = [];
  for (const m of text.matchAll(BLOCK)) {
    // other PEM blocks (a key, a CRL) are not trust anchors: skipped, as the published operator does
    if (m[1] !== 'CERTIFICATE') continue;
    const pem = `-----BEGIN CERTIFICATE-----\n${m[2]!
      .replace(/\s+/g, '')
      .replace(/(.{64})/g, '$1\n')
      .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
    try {
      new X509Certificate(pem);
    } catch (err) {
      return { error: `${where}: certificate ${pems.length + 1} does not parse (${(err as Error).message})` };
    }
    pems.push(pem);
  }
  const rest = text.replace(BLOCK, '').trim();
  if (pems.length === 0 && rest.length > 0) return { error: `${where}: holds no PEM certificate` };
  return { pems };
}

/** the merged bundle from the referenced ConfigMap (undefined: not found), or what is wrong with the reference */
export function mergeCaBundle(ref: CaBundleRef, objectNamespace: string, cm: ConfigMap | undefined): CaBundleOutcome {
  const ns = ref.configMapNamespace ?? objectNamespace;
  if (ns !== objectNamespace)
    return {
      ok: false,
      reason: 'InvalidCABundle',
      field: `${FIELD}.configMapNamespace`,
      message: `${FIELD}.configMapNamespace: ${ns} is not the object's namespace ${objectNamespace}; the CA bundle must be a ConfigMap of the same namespace`,
    };
  if (!cm)
    return {
      ok: false,
      reason: 'ReferenceNotFound',
      field: FIELD,
      message: `ConfigMap "${ref.configMapName}" not found in namespace "${ns}". Referenced by: ${FIELD}`,
    };
  const pems: string[] = [];
  for (const key of ref.configMapKeys?.length ? ref.configMapKeys : DEFAULT_CA_KEYS) {
    const text = cm.data?.[key];
    const where = `${FIELD}: key "${key}" of ConfigMap ${ns}/${ref.configMapName}`;
    if (text === undefined)
      return {
        ok: false,
        reason: 'InvalidCABundle',
        field: `${FIELD}.configMapKeys`,
        message: `${where} does not exist`,
      };
    const certs = certificatesOf(text, where);
    if ('error' in certs) return { ok: false, reason: 'InvalidCABundle', field: FIELD, message: certs.error };
    pems.push(...certs.pems);
  }
  return { ok: true, pem: pems.join(''), certificates: pems.length };
}

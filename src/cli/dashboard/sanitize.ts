// What of an object may reach the browser: never a Secret's content, never the bookkeeping nobody reads
// (managedFields, last-applied-configuration, which may hold a whole earlier manifest). Configuration text is
// shown with secret values replaced; references (`${env.NAME}`, secretKeyRef) stay, since they are the point.
import type { KubeObject } from '@modelplane/runtime/meta';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** keys whose literal values are credentials: the credential word ends the key (`api_token`, `apiKey`,
 * `HF_TOKEN`), so counts and settings such as `max_tokens` or `secretName` are not taken for one */
const SECRET_KEY = /(password|passwd|secret|token|api[-_]?key|credentials?|private[-_]?key)$/i;
/** a value that only points at a secret (environment reference or a ${…} substitution) */
const REFERENCE = /^\$\{[^}]+\}$|^\$[A-Z_][A-Z0-9_]*$/;
export const REDACTED = '‹redacted›';
/** fields that hold the NAME of a Secret (a reference), though their key looks like a credential */
const NAMES_A_SECRET = /Ref$|Name$|^huggingFaceToken$/;

export function sanitizeObject(obj: KubeObject): KubeObject {
  const { managedFields: _m, ...metadata } = obj.metadata;
  if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _l, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  const out: KubeObject = { ...obj, metadata };
  if (obj.kind === 'Secret') {
    // the dashboard never watches Secrets; should one arrive (as a child), only its key names go out
    const data = (obj as { data?: Record<string, string> }).data ?? {};
    return { ...out, data: Object.fromEntries(Object.keys(data).map((k) => [k, REDACTED])) } as KubeObject;
  }
  return redactLiterals(out) as KubeObject;
}

/** replaces literal values under credential-looking keys, anywhere in a JSON value */
export function redactLiterals(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => redactLiterals(v, key));
  if (value !== null && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    // an env entry {name: API_TOKEN, value: "…"} carries the credential in `value`
    const envLike = typeof rec.name === 'string' && SECRET_KEY.test(rec.name) && typeof rec.value === 'string';
    return Object.fromEntries(
      Object.entries(rec).map(([k, v]) => [
        k,
        envLike && k === 'value' && !REFERENCE.test(v as string) ? REDACTED : redactLiterals(v, k),
      ]),
    );
  }
  if (
    typeof value === 'string' &&
    SECRET_KEY.test(key) &&
    value !== '' &&
    !REFERENCE.test(value) &&
    !NAMES_A_SECRET.test(key)
  )
    return REDACTED;
  return value;
}

/**
 * an environment variable holding a credential: named like one (`HF_TOKEN`, `OPENAI_API_KEY`), or one the
 * Llama Stack controller fills from a Secret (`LLSD_<provider>_<key>`, docs/llamastack.md)
 */
const CREDENTIAL_NAME = /password|passwd|secret|token|api[-_]?key|credential|private[-_]?key|^LLSD_/i;
const ENV_REF = /\$\{(?:env\.)?([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}/g;
const CONFIG_LINE = /^\s*(?:-\s+)?([A-Za-z0-9_.-]+)\s*:/;

/**
 * The same rule for YAML/text configuration: `key: value` lines whose key looks like a credential. The
 * secret references listed are the `${env.NAME}` substitutions that hold one (by the variable's name or
 * the key it fills), not every setting read from the environment (`SQLITE_STORE_DIR` is a path).
 */
export function redactConfigText(text: string): { text: string; secretRefs: string[] } {
  const refs = new Set<string>();
  for (const line of text.split('\n')) {
    const key = CONFIG_LINE.exec(line)?.[1] ?? '';
    for (const m of line.matchAll(ENV_REF))
      if (CREDENTIAL_NAME.test(m[1]!) || (SECRET_KEY.test(key) && !NAMES_A_SECRET.test(key))) refs.add(m[1]!);
  }
  const redacted = text.replace(
    /^(\s*(?:-\s+)?([A-Za-z0-9_.-]+)\s*:\s*)(\S.*)$/gm,
    (line, head: string, key: string, value: string) => {
      if (!SECRET_KEY.test(key) || NAMES_A_SECRET.test(key)) return line;
      const v = value.trim().replace(/^["']|["']$/g, '');
      return REFERENCE.test(v) || v === '' || v === 'null' || v === '~' ? line : `${head}${REDACTED}`;
    },
  );
  return { text: redacted, secretRefs: [...refs].sort() };
}

// What differs between two API servers for reasons nobody can observe as behaviour — uids, timestamps,
// resourceVersions, generated names, continue tokens, the server's address — replaced by placeholders, so
// that the fidelity comparison sees only status codes, reasons, messages and body fields.
const TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g;
const UID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const VOLATILE_KEYS = new Set([
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'time',
  'continue',
  'lastTransitionTime',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
]);

export function normaliseText(text: string, serverUrl: string): string {
  return (
    text
      .split(serverUrl)
      .join('<server>')
      .replace(TIME, '<time>')
      .replace(UID, '<uid>')
      // each cluster's own CA (kube-root-ca.crt, caBundles)
      .replace(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/g, '<certificate>')
      // generateName's random suffix
      .replace(/\bgen-[a-z0-9]{5}\b/g, 'gen-<suffix>')
      .replace(/too old resource version: \d+ \(\d+\)/g, 'too old resource version: <rv> (<rv>)')
      .replace(/resourceVersion[=:]\s*"?\d+"?/g, 'resourceVersion=<rv>')
      .replace(/Resource Version:(\s+)\d+/g, 'Resource Version:$1<rv>')
      // kubectl's AGE column and describe's ages
      .replace(/(?<=\s)(\d+(\.\d+)?(ms|s|m|h|d))(?=\s|$)/gm, '<age>')
      .replace(/<age>(\s+)<age>/g, '<age>$1<age>')
  );
}

/** a copy of `value` with volatile fields replaced and object keys sorted */
export function normaliseJson(value: unknown, serverUrl: string): unknown {
  if (Array.isArray(value)) return value.map((v) => normaliseJson(v, serverUrl));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (VOLATILE_KEYS.has(key) && (typeof v === 'string' || typeof v === 'number'))
        out[key] = v === '' ? '' : `<${key}>`;
      else out[key] = normaliseJson(v, serverUrl);
    }
    return out;
  }
  // a Table's AGE cell
  if (typeof value === 'string' && /^\d+(ms|s|m|h|d)(\d+(s|m|h))?$/.test(value)) return '<age>';
  if (typeof value === 'string') return normaliseText(value, serverUrl);
  return value;
}

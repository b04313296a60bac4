// The JSON shape check kube-apiserver gets for free from decoding into Go structs: a built-in object whose
// top-level fields have the wrong JSON type is a 400 BadRequest (`cannot unmarshal …`), not a crash.
import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';

type JsonType = 'object' | 'array' | 'string' | 'stringMap';

const common: Record<string, JsonType> = { metadata: 'object', spec: 'object', status: 'object' };

const byKind: Record<string, Record<string, JsonType>> = {
  ConfigMap: { data: 'stringMap', binaryData: 'stringMap' },
  Secret: { data: 'stringMap', stringData: 'stringMap', type: 'string' },
  Role: { rules: 'array' },
  ClusterRole: { rules: 'array', aggregationRule: 'object' },
  RoleBinding: { subjects: 'array', roleRef: 'object' },
  ClusterRoleBinding: { subjects: 'array', roleRef: 'object' },
  MutatingWebhookConfiguration: { webhooks: 'array' },
  ValidatingWebhookConfiguration: { webhooks: 'array' },
  Endpoints: { subsets: 'array' },
  StorageClass: { parameters: 'stringMap', provisioner: 'string', mountOptions: 'array' },
  ServiceAccount: { secrets: 'array', imagePullSecrets: 'array' },
  Event: { involvedObject: 'object', regarding: 'object', message: 'string', note: 'string', reason: 'string', type: 'string', source: 'object', series: 'object' },
};

function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function matches(v: unknown, t: JsonType): boolean {
  if (v === null || v === undefined) return true;
  switch (t) {
    case 'object':
      return typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'stringMap':
      return typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every((x) => typeof x === 'string');
  }
}

export function checkBuiltinShape(obj: KubeObject, version: string): void {
  const expected = { ...common, ...(byKind[obj.kind] ?? {}) };
  for (const [field, t] of Object.entries(expected)) {
    const v = obj[field];
    if (matches(v, t)) continue;
    const want = t === 'stringMap' ? 'map[string]string' : t;
    throw errors.badRequest(`${obj.kind} in version "${version}" cannot be handled as a ${obj.kind}: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field ${obj.kind}.${field} of type ${want}`);
  }
}

// Strict structure check of built-in Kubernetes objects against @kubernetes/client-node's model of the API
// (each V1<Kind> class lists its fields and their types). The embedded API server's OpenAPI for built-in
// kinds preserves unknown fields, so `kubectl apply --dry-run=server` alone would accept a misspelt field such
// as `readOnlyRootFileSystem`; this catches it the way kube-apiserver's strict field validation does.
import * as k8s from '@kubernetes/client-node';

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}
type Model = { getAttributeTypeMap(): Attribute[] };

const models = k8s as unknown as Record<string, Model | undefined>;

function modelOf(type: string): Model | undefined {
  const m = models[type];
  return m && typeof m.getAttributeTypeMap === 'function' ? m : undefined;
}

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

function check(value: unknown, type: string, format: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const describe = () => `${path}: expected ${type}, got ${JSON.stringify(value)}`;
  const array = ARRAY.exec(type);
  if (array) {
    if (!Array.isArray(value)) return void out.push(describe());
    for (const [i, v] of value.entries()) check(v, array[1]!, '', `${path}[${i}]`, out);
    return;
  }
  const map = MAP.exec(type);
  if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) return void out.push(describe());
    for (const [k, v] of Object.entries(value)) check(v, map[1]!, '', `${path}.${k}`, out);
    return;
  }
  switch (type) {
    case 'string':
    case 'Date':
      if (typeof value !== 'string') out.push(describe());
      return;
    case 'boolean':
      if (typeof value !== 'boolean') out.push(describe());
      return;
    case 'number':
      if (typeof value !== 'number' || (/^int/.test(format) && !Number.isInteger(value))) out.push(describe());
      if (format === 'int32' && typeof value === 'number' && Math.abs(value) > 2 ** 31)
        out.push(`${path}: ${value} is out of int32 range`);
      return;
    case 'IntOrString':
      if (typeof value !== 'string' && !Number.isInteger(value)) out.push(describe());
      return;
    case 'any':
    case 'object':
      return;
  }
  const model = modelOf(type);
  if (!model) return void out.push(`${path}: the client model has no type ${type}`);
  if (typeof value !== 'object' || Array.isArray(value)) return void out.push(describe());
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a]));
  for (const [key, v] of Object.entries(value)) {
    const field = fields.get(key);
    if (!field) out.push(`${path}.${key}: unknown field (${type} has ${[...fields.keys()].join(', ')})`);
    else check(v, field.type, field.format, `${path}.${key}`, out);
  }
}

/** every structural error of a built-in object (unknown field, wrong type), each naming the field path */
export function schemaErrors(obj: { apiVersion?: string; kind?: string; metadata?: { name?: string } }): string[] {
  const type = `V1${obj.kind}`;
  const where = `${obj.kind} ${obj.metadata?.name ?? '?'}`;
  if (!modelOf(type)) return [`${where}: no client model ${type} to check it against`];
  const out: string[] = [];
  check(obj, type, '', where, out);
  return out;
}

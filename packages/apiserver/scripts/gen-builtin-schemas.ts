// Generates src/builtin/schemas.generated.json: the field schema of every built-in kind the
// embedded API server serves, read from @kubernetes/client-node's generated models (attributeTypeMap for
// names and JSON types, the .d.ts comments for short descriptions and required fields). The API server
// reads the JSON at run time and never imports client-node.
//
//   npm run gen:builtin-schemas            rewrite the file
//   npm run gen:builtin-schemas -- --check exit 1 when the checked-in file is out of date
//
// client-node models lose a few Go types that matter for decoding; they are restored below (Quantity,
// the CRD schema's *OrBool/*OrArray wrappers, CustomResourceSubresourceStatus).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { builtinResourceTypes } from '../src/resource-types/builtin-types.ts';

const OUT = resolve(import.meta.dirname, '../src/builtin/schemas.generated.json');
const MODELS = join(dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')), 'gen/models');

interface Attr {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type Model = { attributeTypeMap: Attr[] };
const models = k8s as unknown as Record<string, Model | undefined>;

/** resource.Quantity fields (client-node types them as plain strings); maps of them are v1.ResourceList */
const QUANTITY_FIELDS: Record<string, 'Quantity' | 'ResourceList'> = {
  'V1ResourceRequirements.limits': 'ResourceList',
  'V1ResourceRequirements.requests': 'ResourceList',
  'V1VolumeResourceRequirements.limits': 'ResourceList',
  'V1VolumeResourceRequirements.requests': 'ResourceList',
  'V1PodSpec.overhead': 'ResourceList',
  'V1PersistentVolumeClaimStatus.capacity': 'ResourceList',
  'V1PersistentVolumeClaimStatus.allocatedResources': 'ResourceList',
  'V1PersistentVolumeSpec.capacity': 'ResourceList',
  'V1NodeStatus.capacity': 'ResourceList',
  'V1NodeStatus.allocatable': 'ResourceList',
  'V1ContainerStatus.allocatedResources': 'ResourceList',
  'V1EmptyDirVolumeSource.sizeLimit': 'Quantity',
  'V1ResourceFieldSelector.divisor': 'Quantity',
  'V2MetricTarget.value': 'Quantity',
  'V2MetricTarget.averageValue': 'Quantity',
  'V2MetricValueStatus.value': 'Quantity',
  'V2MetricValueStatus.averageValue': 'Quantity',
};

/** client-node's `any`: what Go type each one really is */
const ANY_FIELDS: Record<string, string> = {
  'V1JSONSchemaProps.additionalItems': 'SchemaOrBool',
  'V1JSONSchemaProps.additionalProperties': 'SchemaOrBool',
  'V1JSONSchemaProps.items': 'SchemaOrArray',
  'V1JSONSchemaProps.dependencies': '{}SchemaOrStringArray',
  'V1JSONSchemaProps.default': 'any',
  'V1JSONSchemaProps.example': 'any',
  'V1JSONSchemaProps.enum': '[]any',
  'V1ManagedFieldsEntry.fieldsV1': 'any',
  'V1CustomResourceSubresources.status': '@V1CustomResourceSubresourceStatus',
};

/** Go packages: OpenAPI definition prefix per API group (meta types are listed by model name) */
const GROUP_DEFS: Record<string, string> = {
  '': 'io.k8s.api.core',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
};
const META_MODELS = new Set([
  'V1ObjectMeta',
  'V1ManagedFieldsEntry',
  'V1OwnerReference',
  'V1LabelSelector',
  'V1LabelSelectorRequirement',
  'V1Condition',
  'V1ListMeta',
  'V1Status',
  'V1StatusDetails',
  'V1StatusCause',
  'V1FieldSelectorRequirement',
]);
/** core types that only non-core kinds reach (so reachability alone would misfile them) */
const CORE_ROOTS = ['V1PodTemplate', 'V1ReplicationController', 'V1TopologySelectorTerm'];

function defPrefix(group: string): string {
  return GROUP_DEFS[group] ?? `io.k8s.api.${group.split('.')[0]}`;
}

interface FieldOut {
  name: string;
  type: string;
  description: string;
}
interface TypeOut {
  go: string;
  def: string;
  description: string;
  required: string[];
  fields: FieldOut[];
}

const docs = new Map<
  string,
  { description: string; fields: Map<string, { description: string; required: boolean }> }
>();

/** First sentence of a doc comment, so explain has something to show without the file growing large. */
function shortDescription(text: string): string {
  const flat = text.replace(/\\(.)/g, '$1').replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  const first = end < 0 ? flat : flat.slice(0, end + 1);
  return first.length > 200 ? `${first.slice(0, 197)}...` : first;
}

function modelDocs(name: string) {
  let d = docs.get(name);
  if (d) return d;
  d = { description: '', fields: new Map() };
  let src = '';
  try {
    src = readFileSync(join(MODELS, `${name}.d.ts`), 'utf8');
  } catch {
    // a synthetic model (no file): no descriptions
  }
  const cls = /\/\*\*\n\* ([^\n]*(?:\n\* [^\n]*)*)\n\*\/\nexport declare class/.exec(src);
  if (cls) d.description = shortDescription(cls[1]!.replace(/\n\* /g, ' '));
  const prop = /(?:\/\*\*\n\s*\* ([^\n]*(?:\n\s*\* [^\n]*)*)\n\s*\*\/\n)?\s*'([^']+)'(\??):/g;
  for (const m of src.matchAll(prop))
    d.fields.set(m[2]!, {
      description: m[1] ? shortDescription(m[1].replace(/\n\s*\* /g, ' ')) : '',
      required: m[3] !== '?',
    });
  docs.set(name, d);
  return d;
}

const DATE_FORMATS: Record<string, string> = { 'date-time': 'Time', 'date-time-micro': 'MicroTime' };
const NUMBER_FORMATS: Record<string, string> = { int32: 'int32', int64: 'int64', double: 'float64' };

/** client-node's TS type string → this file's type grammar (see builtin/schema-types.ts) */
function typeOf(model: string, a: Attr): string {
  const key = `${model}.${a.baseName}`;
  if (ANY_FIELDS[key]) return ANY_FIELDS[key]!;
  const q = QUANTITY_FIELDS[key];
  if (q === 'Quantity') return 'Quantity';
  if (q === 'ResourceList') return 'ResourceList';
  return convert(key, a.type, a.format);
}

function convert(key: string, t: string, format: string): string {
  const arr = /^Array<(.+)>$/.exec(t);
  if (arr) return `[]${convert(key, arr[1]!, format)}`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(t);
  if (map) return `{}${convert(key, map[1]!, format)}`;
  switch (t) {
    case 'string':
      return format === 'byte' ? 'bytes' : 'string';
    case 'boolean':
      return 'bool';
    case 'number': {
      const n = NUMBER_FORMATS[format];
      if (!n) throw new Error(`${key}: number without a known format (${format})`);
      return n;
    }
    case 'Date': {
      const d = DATE_FORMATS[format];
      if (!d) throw new Error(`${key}: Date with unknown format ${format}`);
      return d;
    }
    case 'IntOrString':
      return 'IntOrString';
    case 'V1MicroTime':
      return 'MicroTime';
    case 'any':
      throw new Error(`${key}: client-node says "any": add it to ANY_FIELDS with its real Go type`);
    default:
      if (!models[t]) throw new Error(`${key}: unknown model ${t}`);
      return `@${t}`;
  }
}

function goName(model: string): string {
  const m = /^(?:[A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(model);
  if (!m) throw new Error(`cannot derive a Go type name from ${model}`);
  return `${m[1]!.toLowerCase()}.${m[2]}`;
}

function rootModel(group: string, version: string, kind: string): string {
  const v = version[0]!.toUpperCase() + version.slice(1);
  const groupWord = group === '' ? 'Core' : group.split('.')[0]!.replace(/^./, (c) => c.toUpperCase());
  for (const name of [`${groupWord}${v}${kind}`, `${v}${kind}`]) if (models[name]) return name;
  throw new Error(`no client-node model for ${group}/${version} ${kind}`);
}

function build(): { kinds: Record<string, string>; types: Record<string, TypeOut> } {
  const kinds: Record<string, string> = {};
  const types: Record<string, TypeOut> = {};
  const pkgOf = new Map<string, string>();
  const visit = (model: string, group: string, version: string) => {
    if (types[model]) return;
    if (!pkgOf.has(model))
      pkgOf.set(model, META_MODELS.has(model) ? 'io.k8s.apimachinery.pkg.apis.meta' : defPrefix(group));
    const attrs = model === 'V1CustomResourceSubresourceStatus' ? [] : models[model]?.attributeTypeMap;
    if (!attrs) throw new Error(`${model}: no attributeTypeMap in client-node`);
    const d = modelDocs(model);
    const out: TypeOut = { go: goName(model), def: '', description: d.description, required: [], fields: [] };
    types[model] = out;
    for (const a of attrs) {
      const type = typeOf(model, a);
      const fd = d.fields.get(a.name) ?? d.fields.get(a.baseName);
      // (client-node documents IntOrString fields with the type's own text, which explain shows anyway)
      const description =
        type === 'IntOrString' && fd?.description.startsWith('IntOrString is') ? '' : (fd?.description ?? '');
      out.fields.push({ name: a.baseName, type, description });
      if (fd?.required) out.required.push(a.baseName);
      for (const ref of type.matchAll(/@(\w+)/g)) visit(ref[1]!, group, version);
    }
  };
  const rts = builtinResourceTypes();
  for (const name of CORE_ROOTS) visit(name, '', 'v1');
  for (const rt of [...rts].sort((a, b) => Number(a.group !== '') - Number(b.group !== ''))) {
    const version = rt.versions[0]!.name;
    const model = rootModel(rt.group, version, rt.kind);
    kinds[`${rt.group}/${version}/${rt.kind}`] = model;
    visit(model, rt.group, version);
  }
  for (const [model, t] of Object.entries(types)) {
    const version = t.go.split('.')[0]!;
    t.def = `${pkgOf.get(model)}.${version}.${t.go.split('.')[1]}`;
  }
  // keep what the served kinds reach (the extra core roots only placed types in their package)
  const reached = new Set<string>();
  const reach = (model: string) => {
    if (reached.has(model)) return;
    reached.add(model);
    for (const f of types[model]!.fields) for (const ref of f.type.matchAll(/@(\w+)/g)) reach(ref[1]!);
  };
  for (const model of Object.values(kinds)) reach(model);
  const kept = Object.entries(types).filter(([name]) => reached.has(name));
  return {
    kinds: Object.fromEntries(Object.entries(kinds).sort()),
    types: Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/** One type per line: small diffs when client-node changes. */
function render(data: ReturnType<typeof build>): string {
  const lines = Object.entries(data.types).map(([name, t]) => {
    const fields = t.fields.map((f) => [f.name, f.type, f.description]);
    return `    ${JSON.stringify(name)}: ${JSON.stringify({ go: t.go, def: t.def, d: t.description, r: t.required, f: fields })}`;
  });
  return `{\n  "kinds": ${JSON.stringify(data.kinds)},\n  "types": {\n${lines.join(',\n')}\n  }\n}\n`;
}

const text = render(build());
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUT, 'utf8');
  } catch {
    // missing counts as out of date
  }
  if (current !== text) {
    console.error(`${OUT} is out of date: run npm run gen:builtin-schemas`);
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT} (${text.length} bytes)`);
}

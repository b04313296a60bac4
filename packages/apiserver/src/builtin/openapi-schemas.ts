// OpenAPI v3 component schemas for the built-in kinds of one group-version, as kube-apiserver publishes
// them: one definition per Go struct under its Go package name (io.k8s.api.core.v1.PodSpec), fields that
// refer to a struct as $ref (wrapped in allOf when the field has its own description), and the
// well-known apimachinery types. `kubectl explain` reads these. Built once per group-version.
import { builtinTypes, K, type TypeNode } from './schema-types.ts';

type Schema = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const WELL_KNOWN: Record<string, Schema> = {
  [`${META}.Time`]: {
    type: 'string',
    format: 'date-time',
    description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.',
  },
  [`${META}.MicroTime`]: {
    type: 'string',
    format: 'date-time',
    description: 'MicroTime is version of Time with microsecond level precision.',
  },
  // (v3 publishes these two as oneOf, so explain names them by their definition)
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    format: 'int-or-string',
    description: 'IntOrString is a type that can hold an int32 or a string.',
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': {
    oneOf: [{ type: 'string' }, { type: 'number' }],
    description: 'Quantity is a fixed-point representation of a number (e.g. 500m, 1Gi).',
  },
};
const WELL_KNOWN_REF: Partial<Record<number, string>> = {
  [K.time]: `${META}.Time`,
  [K.microTime]: `${META}.MicroTime`,
  [K.intOrString]: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  [K.quantity]: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
};

const SCALARS: Partial<Record<number, Schema>> = {
  [K.string]: { type: 'string' },
  [K.bool]: { type: 'boolean' },
  [K.int32]: { type: 'integer', format: 'int32' },
  [K.int64]: { type: 'integer', format: 'int64' },
  [K.float64]: { type: 'number', format: 'double' },
  [K.bytes]: { type: 'string', format: 'byte' },
};

const ref = (def: string): Schema => ({ $ref: `#/components/schemas/${def}` });

class Collector {
  readonly schemas: Record<string, Schema> = {};

  field(n: TypeNode, description: string): Schema {
    const described = (s: Schema): Schema => (description ? { ...s, description } : s);
    if (n.kind === K.struct) {
      this.struct(n);
      return description ? { allOf: [ref(n.def!)], description } : ref(n.def!);
    }
    const known = WELL_KNOWN_REF[n.kind];
    if (known) {
      this.schemas[known] = WELL_KNOWN[known]!;
      return description ? { allOf: [ref(known)], description } : ref(known);
    }
    const scalar = SCALARS[n.kind];
    if (scalar) return described(scalar);
    if (n.kind === K.array) return described({ type: 'array', items: this.field(n.elem!, '') });
    if (n.kind === K.map) return described({ type: 'object', additionalProperties: this.field(n.elem!, '') });
    // RawExtension, JSON, FieldsV1 and the CRD schema's *Or* wrappers: any JSON
    return described({ 'x-kubernetes-preserve-unknown-fields': true });
  }

  struct(n: TypeNode): void {
    if (this.schemas[n.def!]) return;
    const out: Schema = { type: 'object' };
    if (n.description) out.description = n.description;
    this.schemas[n.def!] = out; // before the fields: JSONSchemaProps refers to itself
    const properties: Record<string, Schema> = {};
    for (const f of n.fields!.values()) properties[f.name] = this.field(f.node, f.description);
    out.properties = properties;
    if (n.required && n.required.length > 0) out.required = n.required;
  }
}

const cache = new Map<string, { schemas: Record<string, Schema>; roots: Map<string, string> }>();

/**
 * The component schemas of the given built-in kinds of `group/version` (roots tagged with their
 * x-kubernetes-group-version-kind) and each kind's definition name. Kinds without a compiled schema
 * are left out of `roots`.
 */
export function builtinOpenApiSchemas(
  group: string,
  version: string,
  kinds: string[],
): { schemas: Record<string, Schema>; roots: Map<string, string> } {
  const key = `${group}/${version}/${kinds.join(',')}`;
  let hit = cache.get(key);
  if (hit) return hit;
  const types = builtinTypes();
  const c = new Collector();
  const roots = new Map<string, string>();
  for (const kind of kinds) {
    const root = types.kind(group, version, kind);
    if (!root) continue;
    c.struct(root);
    roots.set(kind, root.def!);
  }
  for (const [kind, def] of roots)
    c.schemas[def] = { ...c.schemas[def], 'x-kubernetes-group-version-kind': [{ group, version, kind }] };
  hit = { schemas: c.schemas, roots };
  cache.set(key, hit);
  return hit;
}

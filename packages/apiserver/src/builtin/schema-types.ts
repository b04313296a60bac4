// The Go types of built-in kinds, compiled once from schemas.generated.json (written by
// scripts/gen-builtin-schemas.ts (in this package) from @kubernetes/client-node's models) into a graph of shared nodes that
// the decoder walks and the OpenAPI documents publish.
//
// Type grammar of the generated file: a scalar name (string, bool, int32, int64, float64, bytes, Time,
// MicroTime, IntOrString, Quantity, ResourceList, any, SchemaOrBool, SchemaOrArray, SchemaOrStringArray),
// `@Model` for a struct, `[]T` for a slice and `{}T` for map[string]T.
import { readFileSync } from 'node:fs';

export const K = {
  string: 0,
  bool: 1,
  int32: 2,
  int64: 3,
  float64: 4,
  bytes: 5,
  time: 6,
  microTime: 7,
  intOrString: 8,
  quantity: 9,
  any: 10,
  struct: 11,
  array: 12,
  map: 13,
  schemaOrBool: 14,
  schemaOrArray: 15,
  schemaOrStringArray: 16,
} as const;
export type NodeKind = (typeof K)[keyof typeof K];

export interface TypeNode {
  kind: NodeKind;
  /** Go's reflect type string, as `json: cannot unmarshal … of type X` prints it */
  go: string;
  /** struct: JSON field name → field */
  fields?: Map<string, FieldNode>;
  /** struct: Go type name without package (the `Struct.` of a Go type error) */
  struct?: string;
  /** struct: OpenAPI definition name */
  def?: string;
  description?: string;
  required?: string[];
  /** slice and map element */
  elem?: TypeNode;
}

export interface FieldNode {
  name: string;
  node: TypeNode;
  description: string;
}

interface GeneratedType {
  go: string;
  def: string;
  d: string;
  r: string[];
  f: [string, string, string][];
}
interface Generated {
  kinds: Record<string, string>;
  types: Record<string, GeneratedType>;
}

const SCALARS: Record<string, TypeNode> = {
  string: { kind: K.string, go: 'string' },
  bool: { kind: K.bool, go: 'bool' },
  int32: { kind: K.int32, go: 'int32' },
  int64: { kind: K.int64, go: 'int64' },
  float64: { kind: K.float64, go: 'float64' },
  bytes: { kind: K.bytes, go: '[]uint8' },
  Time: { kind: K.time, go: 'v1.Time' },
  MicroTime: { kind: K.microTime, go: 'v1.MicroTime' },
  IntOrString: { kind: K.intOrString, go: 'intstr.IntOrString' },
  Quantity: { kind: K.quantity, go: 'resource.Quantity' },
  any: { kind: K.any, go: 'interface {}' },
  SchemaOrBool: { kind: K.schemaOrBool, go: 'v1.JSONSchemaPropsOrBool' },
  SchemaOrArray: { kind: K.schemaOrArray, go: 'v1.JSONSchemaPropsOrArray' },
  SchemaOrStringArray: { kind: K.schemaOrStringArray, go: 'v1.JSONSchemaPropsOrStringArray' },
};

export interface BuiltinTypes {
  /** the root struct of `group/version/kind`, if the server knows its fields */
  kind(group: string, version: string, kind: string): TypeNode | undefined;
  /** the JSONSchemaProps struct (inside the CRD schema wrappers) */
  schemaProps: TypeNode;
}

function compile(data: Generated): BuiltinTypes {
  const structs = new Map<string, TypeNode>();
  const node = (t: string): TypeNode => {
    if (t.startsWith('[]')) {
      const elem = node(t.slice(2));
      return { kind: K.array, go: `[]${elem.go}`, elem };
    }
    if (t.startsWith('{}')) {
      const elem = node(t.slice(2));
      return { kind: K.map, go: `map[string]${elem.go}`, elem };
    }
    if (t === 'ResourceList') return { kind: K.map, go: 'v1.ResourceList', elem: SCALARS.Quantity! };
    if (t.startsWith('@')) return struct(t.slice(1));
    const s = SCALARS[t];
    if (!s) throw new Error(`schemas.generated.json: unknown type ${t}`);
    return s;
  };
  const struct = (model: string): TypeNode => {
    let n = structs.get(model);
    if (n) return n;
    const t = data.types[model];
    if (!t) throw new Error(`schemas.generated.json: unknown model ${model}`);
    n = {
      kind: K.struct,
      go: t.go,
      struct: t.go.slice(t.go.indexOf('.') + 1),
      def: t.def,
      description: t.d,
      required: t.r,
      fields: new Map(),
    };
    structs.set(model, n); // before the fields: JSONSchemaProps refers to itself
    for (const [name, type, description] of t.f) n.fields!.set(name, { name, node: node(type), description });
    return n;
  };
  const roots = new Map<string, TypeNode>();
  for (const [key, model] of Object.entries(data.kinds)) roots.set(key, struct(model));
  return {
    kind: (group, version, kind) => roots.get(`${group}/${version}/${kind}`),
    schemaProps: struct('V1JSONSchemaProps'),
  };
}

let compiled: BuiltinTypes | undefined;

/** Loaded on first use: servers that never write a built-in object never parse the file. */
export function builtinTypes(): BuiltinTypes {
  compiled ??= compile(
    JSON.parse(readFileSync(new URL('./schemas.generated.json', import.meta.url), 'utf8')) as Generated,
  );
  return compiled;
}

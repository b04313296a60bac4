// The schema strategic merge patch and server-side apply walk: which fields are named struct fields,
// which maps are atomic, how lists merge (atomic / set / map with keys) and the strategic-merge-patch
// strategy of each field. Built-in kinds declare theirs (builtin-schemas.ts); custom resources derive
// it from the CRD's structural schema (schemaFromOpenAPI), as kube's schemaconv does.

export type MapType = 'granular' | 'atomic';

/** Where a field sits in its parent's Go zero value: a non-pointer struct (`{}`) or a non-omitempty slice/map (`null`). */
export type ZeroForm = 'struct' | 'null';

export interface StructSchema {
  kind: 'struct';
  /** declared (named) fields */
  fields: Record<string, PatchSchema>;
  /** schema of keys not in `fields` (additionalProperties, preserve-unknown-fields); untyped when absent */
  other?: PatchSchema;
  /** undeclared keys count as named fields (open built-in structs) rather than map entries */
  otherNamed?: boolean;
  mapType?: MapType;
  /** strategic merge patch strategy when this map is a field value */
  patchStrategy?: 'replace' | 'retainKeys';
  zero?: ZeroForm;
}

export interface ListSchema {
  kind: 'list';
  listType: 'atomic' | 'set' | 'map';
  /** x-kubernetes-list-map-keys, in declaration order */
  keys?: string[];
  /** defaults used for key fields an item omits (kube: the key field's schema default) */
  keyDefaults?: Record<string, string | number | boolean>;
  item: PatchSchema;
  /** strategic merge patch strategy; lists without one are replaced */
  patchStrategy?: 'merge' | 'replace';
  patchMergeKey?: string;
  zero?: ZeroForm;
}

export interface ScalarSchema {
  kind: 'scalar';
  zero?: ZeroForm;
}

/** Deduced from the value: objects are granular maps, lists are atomic, the rest scalars. */
export interface UntypedSchema {
  kind: 'untyped';
  /** keys of deduced objects are named struct fields (open built-in structs) rather than map entries */
  namedFields?: boolean;
  zero?: ZeroForm;
}

export type PatchSchema = StructSchema | ListSchema | ScalarSchema | UntypedSchema;

export const UNTYPED: UntypedSchema = { kind: 'untyped' };
export const UNTYPED_STRUCT: UntypedSchema = { kind: 'untyped', namedFields: true };
export const SCALAR: ScalarSchema = { kind: 'scalar' };

const untypedAsStruct = new WeakMap<UntypedSchema, StructSchema>();

/** The map view of an untyped schema (its children are untyped the same way). */
export function structOfUntyped(u: UntypedSchema): StructSchema {
  let s = untypedAsStruct.get(u);
  if (!s) {
    s = { kind: 'struct', fields: {}, other: u, ...(u.namedFields ? { otherNamed: true } : {}) };
    untypedAsStruct.set(u, s);
  }
  return s;
}

/** Accepts the opaque schema strategies hand over; anything that is not a schema is treated as untyped. */
export function asPatchSchema(s: unknown): PatchSchema {
  if (typeof s === 'object' && s !== null && 'kind' in s) {
    const k = (s as { kind: unknown }).kind;
    if (k === 'struct' || k === 'list' || k === 'scalar' || k === 'untyped') return s as PatchSchema;
  }
  return UNTYPED;
}

// (own properties only: a field named `constructor` or `toString` must not find Object's members)
export function fieldSchema(s: StructSchema, key: string): PatchSchema {
  return (Object.hasOwn(s.fields, key) ? s.fields[key] : undefined) ?? s.other ?? UNTYPED;
}

export function isNamedField(s: StructSchema, key: string): boolean {
  return Object.hasOwn(s.fields, key) || s.otherNamed === true;
}

/** The struct view of a schema for a map value, or undefined when the schema is not a map. */
export function structView(s: PatchSchema): StructSchema | undefined {
  if (s.kind === 'struct') return s;
  if (s.kind === 'untyped') return structOfUntyped(s);
  return undefined;
}

// ---- builders used by the built-in schemas ----

/** A Go struct: declared fields plus open, named fields of any other shape. */
export function struct(
  fields: Record<string, PatchSchema>,
  opts: Partial<Omit<StructSchema, 'kind' | 'fields'>> = {},
): StructSchema {
  return { kind: 'struct', fields, other: UNTYPED_STRUCT, otherNamed: true, ...opts };
}

/** A Go map[string]T: granular unless atomic. */
export function mapOf(
  item: PatchSchema = SCALAR,
  opts: Partial<Omit<StructSchema, 'kind' | 'fields' | 'other'>> = {},
): StructSchema {
  return { kind: 'struct', fields: {}, other: item, ...opts };
}

export function atomicMap(): StructSchema {
  return { kind: 'struct', fields: {}, other: SCALAR, mapType: 'atomic' };
}

/** An atomic struct (`+structType=atomic`, e.g. LabelSelector). */
export function atomicStruct(
  fields: Record<string, PatchSchema> = {},
  opts: Partial<Omit<StructSchema, 'kind' | 'fields'>> = {},
): StructSchema {
  return { ...struct(fields), mapType: 'atomic', ...opts };
}

export function atomicList(
  item: PatchSchema = UNTYPED_STRUCT,
  opts: Partial<Omit<ListSchema, 'kind' | 'listType' | 'item'>> = {},
): ListSchema {
  return { kind: 'list', listType: 'atomic', item, ...opts };
}

/** `+listType=set`; `smpMerge` adds `patchStrategy=merge` (finalizers, podCIDRs). */
export function setList(
  smpMerge = false,
  opts: Partial<Omit<ListSchema, 'kind' | 'listType' | 'item'>> = {},
): ListSchema {
  return {
    kind: 'list',
    listType: 'set',
    item: SCALAR,
    ...(smpMerge ? { patchStrategy: 'merge' as const } : {}),
    ...opts,
  };
}

/** `+listType=map` with keys; the strategic merge key defaults to the first key. */
export function mapList(
  keys: string[],
  item: PatchSchema,
  opts: Partial<Omit<ListSchema, 'kind' | 'listType' | 'item' | 'keys'>> & { smp?: boolean } = {},
): ListSchema {
  const { smp = true, ...rest } = opts;
  return {
    kind: 'list',
    listType: 'map',
    keys,
    item,
    ...(smp ? { patchStrategy: 'merge' as const, patchMergeKey: keys[0] } : {}),
    ...rest,
  };
}

/** Marks a field as present in its parent's Go zero value (non-pointer struct or non-omitempty slice). */
export function zero<T extends PatchSchema>(s: T, form: ZeroForm = 'struct'): T {
  return { ...s, zero: form };
}

/** The Go zero value of a typed object as the field manager sees it on create: non-pointer structs present. */
export function zeroObject(s: PatchSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.kind !== 'struct') return out;
  for (const [k, f] of Object.entries(s.fields)) {
    if (f.zero === 'struct') out[k] = zeroObject(f);
    else if (f.zero === 'null') out[k] = null;
  }
  return out;
}

const zeroBearing = new WeakMap<PatchSchema, boolean>();

/** Whether any field at or below this schema appears in a Go zero value (memoized; schemas are acyclic). */
function hasZeroFields(s: PatchSchema): boolean {
  let r = zeroBearing.get(s);
  if (r === undefined) {
    if (s.kind === 'struct') r = Object.values(s.fields).some((f) => f.zero !== undefined || hasZeroFields(f));
    else if (s.kind === 'list') r = hasZeroFields(s.item);
    else r = false;
    zeroBearing.set(s, r);
  }
  return r;
}

/**
 * The value as kube's typed conversion sees it: non-pointer structs and non-omitempty lists that a
 * built-in object omits are present (`{}` / null). Comparisons use this form so that a field the
 * Go type always has is never reported as newly added. Returns `v` itself when nothing is missing.
 */
export function withZeroFields<T>(v: T, s: PatchSchema): T {
  if (!hasZeroFields(s)) return v;
  if (s.kind === 'list' && Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((item, i) => {
      const filled = withZeroFields(item, s.item);
      if (filled !== item) (out ??= [...v])[i] = filled;
    });
    return (out ?? v) as T;
  }
  if (s.kind !== 'struct' || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const obj = v as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const [k, f] of Object.entries(s.fields)) {
    if (Object.hasOwn(obj, k)) {
      const filled = withZeroFields(obj[k], f);
      if (filled !== obj[k]) (out ??= { ...obj })[k] = filled;
    } else if (f.zero === 'struct') (out ??= { ...obj })[k] = zeroObject(f);
    else if (f.zero === 'null') (out ??= { ...obj })[k] = null;
  }
  return (out ?? v) as T;
}

// ---- metadata ----

export const objectMetaSchema: StructSchema = zero(
  struct({
    labels: mapOf(SCALAR),
    annotations: mapOf(SCALAR),
    ownerReferences: mapList(['uid'], struct({})),
    finalizers: setList(true),
    managedFields: atomicList(),
  }),
);

/** The common top level of every object. */
export function objectSchema(fields: Record<string, PatchSchema>): StructSchema {
  return struct({ apiVersion: SCALAR, kind: SCALAR, metadata: objectMetaSchema, ...fields });
}

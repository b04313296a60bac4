// What an API server with strict field validation (kubectl's default) would refuse in a manifest of our
// kinds, found without a cluster for `modelplane render`: a kind its API group does not have, a version it
// does not serve, and fields the CRD schema does not know, named as kubectl names them —
// `unknown field "spec.engien"`. Kinds of other groups pass through untouched.
import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

const OBJECT_META = new Set([
  'name',
  'namespace',
  'generateName',
  'labels',
  'annotations',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'ownerReferences',
  'finalizers',
  'managedFields',
  'selfLink',
]);

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function unknownFields(value: unknown, schema: Schema | undefined, path: string, out: string[]): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) unknownFields(v, schema.items, `${path}[${i}]`, out);
    return;
  }
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const { properties, additionalProperties } = schema;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (properties && Object.hasOwn(properties, key)) unknownFields(v, properties[key], join(path, key), out);
    else if (additionalProperties && typeof additionalProperties === 'object')
      unknownFields(v, additionalProperties, join(path, key), out);
    else if (!preserve && additionalProperties !== true) out.push(`unknown field "${join(path, key)}"`);
  }
}

/** the problems of one object against the CRDs of its group, or [] when the group is not ours */
export function strictProblems(obj: KubeObject, crds: readonly CustomResourceDefinition[]): string[] {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/', 2) : ['', obj.apiVersion];
  const ofGroup = crds.filter((c) => c.spec.group === group);
  if (ofGroup.length === 0) return [];
  const crd = ofGroup.find((c) => c.spec.names.kind === obj.kind);
  if (!crd)
    return [
      `no matches for kind "${obj.kind}" in version "${obj.apiVersion}" (${group} has ${ofGroup.map((c) => c.spec.names.kind).join(', ')})`,
    ];
  const served = crd.spec.versions.find((v) => v.name === version && v.served);
  if (!served)
    return [
      `no matches for kind "${obj.kind}" in version "${obj.apiVersion}" (served: ${crd.spec.versions
        .filter((v) => v.served)
        .map((v) => `${group}/${v.name}`)
        .join(', ')})`,
    ];
  const out: string[] = [];
  const { apiVersion: _v, kind: _k, metadata, ...rest } = obj as KubeObject & Record<string, unknown>;
  for (const key of Object.keys(metadata ?? {})) if (!OBJECT_META.has(key)) out.push(`unknown field "metadata.${key}"`);
  unknownFields(rest, served.schema?.openAPIV3Schema as Schema | undefined, '', out);
  return out;
}

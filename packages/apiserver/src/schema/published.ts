// A CRD version schema as it is published in /openapi/v3/apis/<group>/<version>: a valid OpenAPI 3.0
// schema fragment. Keywords a structural schema can never contain but JSONSchemaProps can carry are
// dropped, `apiVersion`/`kind` get kube's standard descriptions, and `metadata` can point at ObjectMeta.
import { deepCopyJson } from './compiled-schema.ts';
import type { JSONSchemaProps } from './types.ts';

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** JSON-Schema keywords that are not OpenAPI 3.0 schema keywords. */
const NOT_OPENAPI = ['id', '$schema', 'definitions', 'dependencies', 'patternProperties', 'additionalItems'] as const;

function clean(s: JSONSchemaProps): JSONSchemaProps {
  for (const k of NOT_OPENAPI) delete s[k];
  if (Array.isArray(s.items)) s.items = s.items[0];
  if (s.items && !Array.isArray(s.items)) clean(s.items);
  for (const p of Object.values(s.properties ?? {})) clean(p);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') clean(s.additionalProperties);
  for (const list of [s.allOf, s.anyOf, s.oneOf]) for (const x of list ?? []) clean(x);
  if (s.not) clean(s.not);
  return s;
}

export interface PublishOptions {
  /** `$ref` target for ObjectMeta (e.g. `#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`); when unset metadata stays an object schema */
  objectMetaRef?: string;
}

export function crdOpenAPIToPublished(schema: JSONSchemaProps, opts: PublishOptions = {}): JSONSchemaProps {
  const out = clean(deepCopyJson(schema));
  const props = (out.properties ??= {});
  props.apiVersion = { description: API_VERSION_DESCRIPTION, type: 'string', ...props.apiVersion };
  props.kind = { description: KIND_DESCRIPTION, type: 'string', ...props.kind };
  if (opts.objectMetaRef) {
    props.metadata = { description: METADATA_DESCRIPTION, allOf: [{ $ref: opts.objectMetaRef }] };
  } else {
    props.metadata = { type: 'object', ...props.metadata };
  }
  if (!out.type) out.type = 'object';
  return out;
}

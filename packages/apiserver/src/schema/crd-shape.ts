// JSON shape of a CRD object. kube-apiserver decodes a CRD into typed Go structs before validating it, so
// a wrong JSON type (a string where a list belongs, a number as a schema) is rejected up front; here the
// same check runs first and the rule checks only ever see well-typed input.
import type { StatusCause } from '../errors.ts';
import { compileSchema, isPlainObject, jsonType } from './compiled-schema.ts';
import { fieldError } from './field-errors.ts';
import type { JSONSchemaProps } from './types.ts';
import { validateNode } from './value-validation.ts';

const str: JSONSchemaProps = { type: 'string' };
const bool: JSONSchemaProps = { type: 'boolean' };
const strings: JSONSchemaProps = { type: 'array', items: str };
const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const list = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items });
const anyObject: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const CRD_SHAPE: JSONSchemaProps = obj({
  metadata: obj({ name: str, generateName: str }),
  spec: obj({
    group: str,
    scope: str,
    preserveUnknownFields: bool,
    names: obj({ plural: str, singular: str, kind: str, listKind: str, shortNames: strings, categories: strings }),
    versions: list(
      obj({
        name: str,
        served: bool,
        storage: bool,
        deprecated: bool,
        deprecationWarning: str,
        schema: obj({ openAPIV3Schema: anyObject }),
        subresources: obj({
          status: anyObject,
          scale: obj({ specReplicasPath: str, statusReplicasPath: str, labelSelectorPath: str }),
        }),
        additionalPrinterColumns: list(
          obj({ name: str, type: str, format: str, description: str, priority: { type: 'integer' }, jsonPath: str }),
        ),
        selectableFields: list(obj({ jsonPath: str })),
      }),
    ),
    conversion: obj({
      strategy: str,
      webhook: obj({
        conversionReviewVersions: strings,
        clientConfig: obj({
          url: str,
          caBundle: str,
          service: obj({ namespace: str, name: str, path: str, port: { type: 'integer' } }),
        }),
      }),
    }),
  }),
});

const SCHEMA_STRINGS = [
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'pattern',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
];
const SCHEMA_NUMBERS = [
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
];
const SCHEMA_BOOLS = [
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];
const SCHEMA_STRING_LISTS = ['required', 'x-kubernetes-list-map-keys'];
const RULE_SHAPE = compileSchema(
  obj({ rule: str, message: str, messageExpression: str, reason: str, fieldPath: str, optionalOldSelf: bool }),
);

function wrongType(path: string, want: string, value: unknown, out: StatusCause[]): void {
  const got = jsonType(value);
  out.push(fieldError.typeInvalid(path, got, `${path} in body must be of type ${want}: "${got}"`));
}

/** Every node of a JSONSchemaProps tree: keyword values of the right JSON type, sub-schemas objects. */
function schemaShape(s: unknown, path: string, out: StatusCause[]): void {
  if (!isPlainObject(s)) {
    wrongType(path, 'object', s, out);
    return;
  }
  const at = (k: string) => `${path}.${k}`;
  for (const k of SCHEMA_STRINGS)
    if (s[k] !== undefined && typeof s[k] !== 'string') wrongType(at(k), 'string', s[k], out);
  for (const k of SCHEMA_NUMBERS)
    if (s[k] !== undefined && typeof s[k] !== 'number') wrongType(at(k), 'number', s[k], out);
  for (const k of SCHEMA_BOOLS)
    if (s[k] !== undefined && typeof s[k] !== 'boolean') wrongType(at(k), 'boolean', s[k], out);
  for (const k of SCHEMA_STRING_LISTS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!Array.isArray(v)) wrongType(at(k), 'array', v, out);
    else for (const [i, x] of v.entries()) if (typeof x !== 'string') wrongType(`${at(k)}[${i}]`, 'string', x, out);
  }
  if (s.enum !== undefined && !Array.isArray(s.enum)) wrongType(at('enum'), 'array', s.enum, out);
  if (s.not !== undefined) schemaShape(s.not, at('not'), out);
  for (const k of ['additionalProperties', 'additionalItems'])
    if (s[k] !== undefined && typeof s[k] !== 'boolean') schemaShape(s[k], at(k), out);
  if (Array.isArray(s.items)) for (const [i, x] of s.items.entries()) schemaShape(x, `${at('items')}[${i}]`, out);
  else if (s.items !== undefined) schemaShape(s.items, at('items'), out);
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    if (s[k] === undefined) continue;
    if (!Array.isArray(s[k])) wrongType(at(k), 'array', s[k], out);
    else for (const [i, x] of (s[k] as unknown[]).entries()) schemaShape(x, `${at(k)}[${i}]`, out);
  }
  for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
    const m = s[k];
    if (m === undefined) continue;
    if (!isPlainObject(m)) wrongType(at(k), 'object', m, out);
    else
      for (const [name, x] of Object.entries(m))
        if (!(k === 'dependencies' && Array.isArray(x))) schemaShape(x, `${at(k)}.${name}`, out);
  }
  const rules = s['x-kubernetes-validations'];
  if (rules !== undefined) {
    if (!Array.isArray(rules)) wrongType(at('x-kubernetes-validations'), 'array', rules, out);
    else
      for (const [i, r] of rules.entries())
        validateNode(RULE_SHAPE, r, `${at('x-kubernetes-validations')}[${i}]`, { out, prefix: '' });
  }
}

/** Type errors in a CRD object; when there are any, the CRD cannot be checked further. */
export function crdShapeErrors(crd: unknown): StatusCause[] {
  const out: StatusCause[] = [];
  validateNode(compileSchema(CRD_SHAPE), crd, '', { out, prefix: '' });
  if (out.length > 0) return out;
  const versions = ((crd as { spec?: { versions?: unknown[] } }).spec?.versions ?? []) as {
    schema?: { openAPIV3Schema?: unknown };
  }[];
  versions.forEach((v, i) => {
    if (v.schema?.openAPIV3Schema !== undefined)
      schemaShape(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`, out);
  });
  return out;
}

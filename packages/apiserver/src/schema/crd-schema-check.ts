// Checks one CRD version schema the way kube-apiserver does on CRD create/update
// (apiextensions validation.go: validateCustomResourceDefinitionValidation): status-subresource root
// restrictions, structural rules, default values, the per-node OpenAPI rules, then CEL compilation.
import type { StatusCause } from '../errors.ts';
import { compileSchemaRules } from './cel-rule-checks.ts';
import { celRuleCauses } from './cel-rules.ts';
import { compileSchema, deepCopyJson, jsonEqual } from './compiled-schema.ts';
import { fieldError, fieldPath, RenderedValue } from './field-errors.ts';
import { embeddedErrors, listTypeErrors } from './list-types.ts';
import { openAPISchemaErrors } from './openapi-schema-check.ts';
import { pruneValue } from './prune.ts';
import { structuralErrors } from './structural.ts';
import type { JSONSchemaProps } from './types.ts';
import { validateNode } from './value-validation.ts';

const { child, key } = fieldPath;

/** JSONSchemaProps fields in Go struct order, with their Go names (used by the status-subresource root rule). */
const GO_FIELDS: [keyof JSONSchemaProps, string][] = [
  ['id', 'ID'],
  ['$schema', 'Schema'],
  ['$ref', 'Ref'],
  ['description', 'Description'],
  ['type', 'Type'],
  ['format', 'Format'],
  ['title', 'Title'],
  ['default', 'Default'],
  ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'],
  ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'],
  ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'],
  ['minProperties', 'MinProperties'],
  ['required', 'Required'],
  ['items', 'Items'],
  ['allOf', 'AllOf'],
  ['oneOf', 'OneOf'],
  ['anyOf', 'AnyOf'],
  ['not', 'Not'],
  ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'],
  ['patternProperties', 'PatternProperties'],
  ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'],
  ['definitions', 'Definitions'],
  ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'],
  ['nullable', 'Nullable'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'],
  ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];

const ALLOWED_AT_STATUS_ROOT = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

/** Go zero values are skipped; an explicit `x-kubernetes-preserve-unknown-fields: false` is a non-nil pointer. */
function isGoZero(name: keyof JSONSchemaProps, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (
    name === 'x-kubernetes-preserve-unknown-fields' ||
    name === 'x-kubernetes-list-type' ||
    name === 'x-kubernetes-map-type'
  )
    return false;
  return v === false || v === '' || v === 0;
}

function statusRootErrors(schema: JSONSchemaProps, path: string): StatusCause[] {
  for (const [name, goName] of GO_FIELDS) {
    if (isGoZero(name, schema[name])) continue;
    if (goName === 'Type') {
      if (schema.type !== 'object') {
        return [
          fieldError.invalid(
            `${path}.openAPIV3Schema.type`,
            schema.type,
            'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
          ),
        ];
      }
      continue;
    }
    if (!ALLOWED_AT_STATUS_ROOT.includes(goName)) {
      const detail = `only [${ALLOWED_AT_STATUS_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`;
      return [fieldError.invalid(`${path}.openAPIV3Schema`, new RenderedValue(JSON.stringify(schema)), detail)];
    }
  }
  return [];
}

/** Default values must survive pruning and validate against their own schema (defaulting/validation.go). */
function defaultErrors(
  s: JSONSchemaProps,
  path: string,
  insideMeta: boolean,
  isResourceRoot: boolean,
  out: StatusCause[],
): void {
  const embedded = isResourceRoot || !!s['x-kubernetes-embedded-resource'];
  if (embedded) insideMeta = false;
  if (s.default !== undefined && s.default !== null && !insideMeta) {
    const defPath = child(path, 'default');
    const node = compileSchema(s);
    const pruned = deepCopyJson(s.default);
    pruneValue(pruned, node);
    if (!jsonEqual(pruned, s.default)) out.push(fieldError.invalid(defPath, s.default, 'must not have unknown fields'));
    const errs: StatusCause[] = [];
    embeddedErrors(node, s.default, defPath, errs);
    if (errs.length === 0) validateNode(node, s.default, '', { out: errs, prefix: defPath });
    if (errs.length === 0) listTypeErrors(node, s.default, defPath, errs);
    if (errs.length === 0 && node.hasRules) errs.push(...celRuleCauses(s, s.default, s.default, defPath));
    out.push(...errs);
  }
  if (s.items && !Array.isArray(s.items)) defaultErrors(s.items, child(path, 'items'), insideMeta, false, out);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const subInsideMeta = insideMeta || (embedded && (k === 'metadata' || k === 'apiVersion' || k === 'kind'));
    defaultErrors(p, key(child(path, 'properties'), k), subInsideMeta, false, out);
  }
}

/**
 * Everything kube checks about `<path>.openAPIV3Schema`, where path is `spec.validation` when every version
 * shares the schema (kube's internal form hoists it) and `spec.versions[i].schema` otherwise.
 */
export function checkVersionSchema(schema: JSONSchemaProps, path: string, statusEnabled: boolean): StatusCause[] {
  const schemaPath = `${path}.openAPIV3Schema`;
  const out: StatusCause[] = [];
  if (statusEnabled) out.push(...statusRootErrors(schema, path));
  if (schema.nullable) out.push(fieldError.forbidden(`${schemaPath}.nullable`, 'nullable cannot be true at the root'));
  const structural = structuralErrors(schema, schemaPath);
  out.push(...structural);
  if (structural.length === 0) defaultErrors(schema, schemaPath, false, true, out);
  const schemaErrs = openAPISchemaErrors(schema, schemaPath);
  out.push(...schemaErrs);
  // like kube, CEL rules are only compiled once the schema is structural and otherwise valid
  if (structural.length === 0 && schemaErrs.length === 0) out.push(...compileSchemaRules(schema, schemaPath));
  return out;
}

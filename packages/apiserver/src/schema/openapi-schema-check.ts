// Per-node rules kube-apiserver applies to every node of a CRD schema
// (apiextensions validation.go: ValidateCustomResourceDefinitionOpenAPISchema + specStandardValidatorV3):
// unsupported JSON-Schema keywords, list/map type extensions, list-map keys and x-kubernetes-validations
// entries. CEL compilation itself is done by cel-rules.ts.
import type { StatusCause } from '../errors.ts';
import { fieldError, fieldPath, RenderedValue } from './field-errors.ts';
import type { JSONSchemaProps } from './types.ts';

const { child, key, index } = fieldPath;

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const SUPPORTED_RULE_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

interface Ssv {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

/** Go's %#v of a []string. */
function goStrings(list: string[]): RenderedValue {
  return new RenderedValue(`[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`);
}

function nodeRules(s: JSONSchemaProps, path: string, ssv: Ssv, out: StatusCause[]): void {
  if (s.type && !OPENAPI_V3_TYPES.includes(s.type))
    out.push(fieldError.notSupported(child(path, 'type'), s.type, OPENAPI_V3_TYPES));
  if (s.default !== undefined && s.default !== null && !ssv.allowDefaults) {
    out.push(
      fieldError.forbidden(
        child(path, 'default'),
        ssv.disallowDefaultsReason ? `must not be set ${ssv.disallowDefaultsReason}` : 'must not be set',
      ),
    );
  }
  if (s.id) out.push(fieldError.forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    out.push(fieldError.forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (s.patternProperties && Object.keys(s.patternProperties).length)
    out.push(fieldError.forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (s.definitions && Object.keys(s.definitions).length)
    out.push(fieldError.forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies) out.push(fieldError.forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) out.push(fieldError.forbidden(child(path, '$ref'), '$ref is not supported'));
  if (s.type === 'null')
    out.push(fieldError.forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length)
    out.push(fieldError.forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (ssv.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    out.push(
      fieldError.forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'),
    );
  }
}

function listAndMapRules(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    out.push(
      fieldError.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'),
    );
  }
  mapTypeRules(s, path, out);
  listTypeRules(s, path, out);
  listMapKeyRules(s, path, out);
  listItemNullability(s, path, out);
}

/** x-kubernetes-map-type: only on objects, atomic or granular */
function mapTypeRules(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type)
      out.push(fieldError.required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else
      out.push(fieldError.invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    out.push(fieldError.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
}

/** x-kubernetes-list-type: only on arrays, one of atomic/set/map, and a set's items atomic */
function listTypeRules(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const listType = s['x-kubernetes-list-type'];
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type)
      out.push(fieldError.required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else
      out.push(fieldError.invalid(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    // set items must be atomic: nested lists atomic, objects x-kubernetes-map-type=atomic
    const itemList = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemList !== undefined && itemList !== 'atomic') {
      out.push(
        fieldError.invalid(
          child(child(path, 'items'), 'x-kubernetes-list-type'),
          itemList,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      out.push(
        fieldError.invalid(
          child(child(path, 'items'), 'x-kubernetes-map-type'),
          itemList ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    out.push(fieldError.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
}

/** x-kubernetes-list-map-keys go with list-type map, name scalar item properties, once each */
function listMapKeyRules(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (mapKeys.length > 0) {
    if (listType === undefined)
      out.push(
        fieldError.required(
          child(path, 'x-kubernetes-list-type'),
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    else if (listType !== 'map')
      out.push(
        fieldError.invalid(
          child(path, 'x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType === 'map') {
    if (mapKeys.length === 0)
      out.push(
        fieldError.required(
          child(path, 'x-kubernetes-list-map-keys'),
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    if (s.items === undefined)
      out.push(fieldError.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items))
      out.push(
        fieldError.invalid(
          child(path, 'items'),
          s.items,
          'must only have a single schema if x-kubernetes-list-type is map',
        ),
      );
    if (items && items.type !== 'object') {
      out.push(
        fieldError.invalid(
          child(child(path, 'items'), 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items && items.type === 'object') mapKeyProperties(items, mapKeys, path, out);
  }
}

/** each map key names a scalar property of the items, once */
function mapKeyProperties(items: JSONSchemaProps, mapKeys: string[], path: string, out: StatusCause[]): void {
  const seen = new Set<string>();
  for (const k of mapKeys) {
    const prop = items.properties?.[k];
    if (prop) {
      if (prop.type === 'array' || prop.type === 'object') {
        out.push(
          fieldError.invalid(
            child(key(child(child(path, 'items'), 'properties'), k), 'type'),
            items.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
    } else {
      out.push(
        fieldError.invalid(
          child(path, 'x-kubernetes-list-map-keys'),
          goStrings(mapKeys),
          'entries must all be names of item properties',
        ),
      );
    }
    if (seen.has(k))
      out.push(
        fieldError.invalid(
          child(path, 'x-kubernetes-list-map-keys'),
          goStrings(mapKeys),
          'must not contain duplicate entries',
        ),
      );
    seen.add(k);
  }
}

/** set/map items must not be nullable; map keys must be required or defaulted and not nullable */
function listItemNullability(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable)
      out.push(
        fieldError.forbidden(
          child(child(path, 'items'), 'nullable'),
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    if (listType === 'map') {
      const required = new Set(items.required ?? []);
      for (const k of mapKeys) {
        const prop = items.properties?.[k];
        if (!prop) continue;
        const keyPath = key(child(child(path, 'items'), 'properties'), k);
        if (!required.has(k) && (prop.default === undefined || prop.default === null)) {
          out.push(
            fieldError.required(
              child(keyPath, 'default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (prop.nullable)
          out.push(
            fieldError.forbidden(
              child(keyPath, 'nullable'),
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            ),
          );
      }
    }
  }
}

const NEWLINE = /[\n\r]/;

/** cel.ValidFieldPath: `.a.b`, `['a.b']` steps through properties (or any key of a map). */
function validFieldPath(s: JSONSchemaProps, path: string): boolean {
  const step = /^(?:\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\])/;
  let rest = path;
  let node: JSONSchemaProps | undefined = s;
  if (rest === '') return false;
  while (rest !== '') {
    const m = step.exec(rest);
    if (!m || !node) return false;
    const name = m[1] ?? m[2]!.replace(/\\(.)/g, '$1');
    const next: JSONSchemaProps | undefined =
      node.properties?.[name] ??
      (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (!next) return false;
    node = next;
    rest = rest.slice(m[0].length);
  }
  return true;
}

function validationRuleEntries(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const rPath = index(child(path, 'x-kubernetes-validations'), i);
    const ruleText = (rule.rule ?? '').trim();
    const msg = rule.message ?? '';
    if (ruleText === '') out.push(fieldError.required(child(rPath, 'rule'), 'rule is not specified'));
    else if (msg.length > 0 && msg.trim() === '')
      out.push(fieldError.invalid(child(rPath, 'message'), msg, 'must be non-empty if specified'));
    else if (NEWLINE.test(msg.trim()))
      out.push(fieldError.invalid(child(rPath, 'message'), msg, 'must not contain line breaks'));
    else if (NEWLINE.test(ruleText) && msg.trim() === '')
      out.push(fieldError.required(child(rPath, 'message'), 'message must be specified if rule contains line breaks'));
    if (
      rule.messageExpression !== undefined &&
      rule.messageExpression.length > 0 &&
      rule.messageExpression.trim() === ''
    ) {
      out.push(
        fieldError.required(child(rPath, 'messageExpression'), 'messageExpression must be non-empty if specified'),
      );
    }
    if (rule.reason !== undefined && !SUPPORTED_RULE_REASONS.includes(rule.reason)) {
      out.push(fieldError.notSupported(child(rPath, 'reason'), rule.reason, SUPPORTED_RULE_REASONS));
    }
    const fp = rule.fieldPath ?? '';
    if (fp.length > 0 && fp.trim() === '')
      out.push(fieldError.invalid(child(rPath, 'fieldPath'), fp, 'must be non-empty if specified'));
    if (NEWLINE.test(fp)) out.push(fieldError.invalid(child(rPath, 'fieldPath'), fp, 'must not contain line breaks'));
    if (fp.length > 0 && !validFieldPath(s, fp))
      out.push(fieldError.invalid(child(rPath, 'fieldPath'), fp, 'must be a valid path'));
  });
}

function walk(s: JSONSchemaProps | undefined, path: string, ssv: Ssv, isRoot: boolean, out: StatusCause[]): void {
  if (!s) return;
  nodeRules(s, path, ssv, out);
  if (s.uniqueItems)
    out.push(
      fieldError.forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  if (s.additionalProperties !== undefined) {
    const props = Object.keys(s.properties ?? {}).length;
    if (props !== 0 && (s.additionalProperties === false || typeof s.additionalProperties === 'object')) {
      out.push(
        fieldError.forbidden(
          child(path, 'additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    }
    const sub = ssv.insideResourceMeta
      ? {
          ...ssv,
          allowDefaults: false,
          disallowDefaultsReason: 'inside additionalProperties applying to object metadata',
        }
      : ssv;
    if (typeof s.additionalProperties === 'object')
      walk(s.additionalProperties, child(path, 'additionalProperties'), sub, false, out);
  }
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    let sub = ssv;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${name}` };
    }
    walk(p, key(child(path, 'properties'), name), sub, false, out);
  }
  walk(s.not, child(path, 'not'), ssv, false, out);
  (s.allOf ?? []).forEach((x, i) => {
    walk(x, index(child(path, 'allOf'), i), ssv, false, out);
  });
  (s.oneOf ?? []).forEach((x, i) => {
    walk(x, index(child(path, 'oneOf'), i), ssv, false, out);
  });
  (s.anyOf ?? []).forEach((x, i) => {
    walk(x, index(child(path, 'anyOf'), i), ssv, false, out);
  });
  for (const [name, d] of Object.entries(s.definitions ?? {}))
    walk(d, key(child(path, 'definitions'), name), ssv, false, out);
  if (Array.isArray(s.items))
    s.items.forEach((x, i) => {
      walk(x, index(child(path, 'items'), i), ssv, false, out);
    });
  else walk(s.items, child(path, 'items'), ssv, false, out);
  for (const [name, d] of Object.entries(s.dependencies ?? {})) {
    if (!Array.isArray(d)) walk(d, key(child(path, 'dependencies'), name), ssv, false, out);
  }
  listAndMapRules(s, path, out);
  validationRuleEntries(s, path, out);
}

/** All per-node problems of a version schema rooted at `path` (`spec.validation.openAPIV3Schema`, …). */
export function openAPISchemaErrors(schema: JSONSchemaProps, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  walk(schema, path, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true, out);
  return out;
}

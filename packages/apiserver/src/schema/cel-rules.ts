// CRD `x-kubernetes-validations` evaluated against a custom resource (celRuleCauses; the checks a CRD's rules
// pass on create/update are in cel-rule-checks.ts), with the field paths, reasons and message texts
// kube-apiserver 1.32 produces, because kubectl prints them verbatim:
//   spec.replicas: Invalid value: "integer": must be at most 10
//   spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:
//     apiextensions.ValidationRule{Rule:"self.x >", …}: compilation failed: ERROR: <input>:1:9: …
//
// Semantics follow apiextensions-apiserver's CEL validator: only non-null values are validated; a rule that
// references oldSelf (a transition rule) runs only on update when an old value correlates at that path
// (object properties, granular maps, map-type list items by key), unless optionalOldSelf makes oldSelf an
// optional and runs it always; one cost budget covers the whole object.

import { Optional } from '@marcbachmann/cel-js';
import {
  CelCompileError,
  CelEvalError,
  type CelProgram,
  COST_LIMIT_MESSAGE,
  compileCel,
  lastEvaluationCost,
  normalizeFieldPath,
  toCel,
} from '@modelplane/apimachinery/cel';
import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps, ValidationRule } from './types.ts';

/** kube's RuntimeCELCostBudget: total cost of all rules for one object */
export const OBJECT_COST_BUDGET = 10_000_000;
const MAX_MESSAGE_EXPRESSION_LENGTH = 5 * 1024;
export const SUPPORTED_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

const RULE_VARIABLES = ['self', 'oldSelf'];
const OPTIONAL_OLD_SELF_VARIABLES = ['self', { name: 'oldSelf', type: 'optional<dyn>' }];

// A schema's rule objects live as long as the CRD; remembering their programs here spares the per-item
// walk over a long list the key building of compileCel's cache.
const rulePrograms = new WeakMap<ValidationRule, CelProgram | CelCompileError>();
const optionalOldSelfRulePrograms = new WeakMap<ValidationRule, CelProgram | CelCompileError>();
const messagePrograms = new WeakMap<ValidationRule, CelProgram | CelCompileError>();

function cachedCompile(
  cache: WeakMap<ValidationRule, CelProgram | CelCompileError>,
  rule: ValidationRule,
  source: string,
  compile: () => CelProgram,
): CelProgram {
  let entry = cache.get(rule);
  if (entry === undefined || entry.expression !== source) {
    try {
      entry = compile();
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      entry = err;
    }
    cache.set(rule, entry);
  }
  if (entry instanceof CelCompileError) throw entry;
  return entry;
}

export function compileRule(rule: ValidationRule): CelProgram {
  const optional = rule.optionalOldSelf === true;
  const variables = optional ? OPTIONAL_OLD_SELF_VARIABLES : RULE_VARIABLES;
  return cachedCompile(optional ? optionalOldSelfRulePrograms : rulePrograms, rule, rule.rule, () =>
    compileCel(rule.rule, { variables }),
  );
}

export function compileMessageExpression(rule: ValidationRule): CelProgram {
  return cachedCompile(messagePrograms, rule, rule.messageExpression!, () =>
    compileCel(rule.messageExpression!, { variables: RULE_VARIABLES }),
  );
}

/** the rule as Go's %#v prints apiextensions.ValidationRule, the value kube shows for a rule that fails to compile */
export function goValidationRule(rule: ValidationRule): string {
  const str = (s: string | undefined) => JSON.stringify(s ?? '');
  const reason =
    rule.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : `(*apiextensions.FieldValueErrorReason)(${str(rule.reason)})`;
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${rule.optionalOldSelf})`;
  return (
    `apiextensions.ValidationRule{Rule:${str(rule.rule)}, Message:${str(rule.message)}, MessageExpression:${str(rule.messageExpression)}, ` +
    `Reason:${reason}, FieldPath:${str(rule.fieldPath)}, OptionalOldSelf:${optional}}`
  );
}

const hasRulesCache = new WeakMap<JSONSchemaProps, boolean>();

/** whether any rule sits at or below this schema node; lets the walk skip rule-free subtrees */
function schemaHasRules(schema: JSONSchemaProps): boolean {
  let has = hasRulesCache.get(schema);
  if (has !== undefined) return has;
  const items = Array.isArray(schema.items) ? undefined : schema.items;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  has =
    (schema['x-kubernetes-validations']?.length ?? 0) > 0 ||
    Object.values(schema.properties ?? {}).some(schemaHasRules) ||
    (items !== undefined && schemaHasRules(items)) ||
    (additional !== undefined && schemaHasRules(additional)) ||
    (schema.allOf ?? []).some(schemaHasRules);
  hasRulesCache.set(schema, has);
  return has;
}

const child = (base: string, name: string) => (base ? `${base}.${name}` : name);
/** kube prints a nil field path as <nil>: that is where errors of root-level rules land */
const fieldOf = (path: string) => path || '<nil>';

export function invalid(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field: fieldOf(field), message: `Invalid value: ${value}: ${detail}` };
}

/** apiextensions' fieldErrorForReason with the value kube 1.32 reports: the schema type, quoted */
function causeForReason(field: string, schemaType: string, detail: string, reason: string | undefined): StatusCause {
  const quotedType = JSON.stringify(schemaType);
  switch (reason) {
    case 'FieldValueForbidden':
      return { reason, field: fieldOf(field), message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { reason, field: fieldOf(field), message: `Required value: ${detail}` };
    case 'FieldValueDuplicate':
      return { reason, field: fieldOf(field), message: `Duplicate value: ${quotedType}` };
    default:
      return invalid(field, quotedType, detail);
  }
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

interface Walk {
  causes: StatusCause[];
  budget: number;
  stopped: boolean;
}

function stop(walk: Walk, cause: StatusCause): void {
  walk.causes.push(cause);
  walk.stopped = true;
}

/** the messageExpression's text, or undefined when it fails or yields nothing usable (kube then falls back) */
function evalMessage(rule: ValidationRule, vars: Record<string, unknown>, walk: Walk): string | undefined {
  try {
    const msg = compileMessageExpression(rule).evaluate(vars);
    walk.budget -= lastEvaluationCost();
    if (typeof msg !== 'string') return undefined;
    const trimmed = msg.trim();
    if (!trimmed || trimmed.includes('\n') || trimmed.length > MAX_MESSAGE_EXPRESSION_LENGTH) return undefined;
    return trimmed;
  } catch {
    return undefined;
  }
}

function runRules(
  schema: JSONSchemaProps,
  node: JSONSchemaProps,
  value: unknown,
  old: unknown,
  path: string,
  root: boolean,
  walk: Walk,
): void {
  const rules = schema['x-kubernetes-validations'];
  if (!rules?.length) return;
  const type = node.type ?? '';
  let self: unknown;
  let oldSelf: unknown;
  for (const rule of rules) {
    if (walk.stopped) return;
    if (walk.budget <= 0) {
      stop(
        walk,
        invalid(
          path,
          JSON.stringify(type),
          'validation failed due to running out of cost budget, no further validation rules will be run',
        ),
      );
      return;
    }
    let program: CelProgram;
    try {
      program = compileRule(rule);
    } catch (err) {
      walk.causes.push(invalid(path, JSON.stringify(type), `rule compile error: ${(err as Error).message}`));
      continue;
    }
    const hasOld = old !== undefined && old !== null;
    const optionalOld = rule.optionalOldSelf === true;
    if (program.identifiers.has('oldSelf') && !hasOld && !optionalOld) continue;
    self ??= toCel(value, node, { resourceRoot: root });
    if (hasOld) oldSelf ??= toCel(old, node, { resourceRoot: root });
    const vars: Record<string, unknown> = { self };
    if (optionalOld) vars.oldSelf = hasOld ? Optional.of(oldSelf) : Optional.none();
    else if (hasOld) vars.oldSelf = oldSelf;

    let result: unknown;
    try {
      result = program.evaluate(vars);
      walk.budget -= lastEvaluationCost();
    } catch (err) {
      walk.budget -= lastEvaluationCost();
      const msg = err instanceof CelEvalError ? err.message : String(err);
      if (err instanceof CelEvalError && err.limitExceeded) {
        const detail = msg.startsWith(COST_LIMIT_MESSAGE)
          ? `'${msg}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`
          : `'${msg}': no further validation rules will be run for rule: ${ruleErrorString(rule)}`;
        stop(walk, invalid(path, JSON.stringify(type), detail));
        return;
      }
      const detail = msg.startsWith('no such overload')
        ? `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
        : `${msg} evaluating rule: ${ruleErrorString(rule)}`;
      walk.causes.push(invalid(path, JSON.stringify(type), detail));
      continue;
    }
    if (result === true) continue;

    let field = path;
    if (rule.fieldPath) {
      const normalized = normalizeFieldPath(rule.fieldPath, node);
      if ('path' in normalized) field = child(path, normalized.path);
    }
    const detail = (rule.messageExpression && evalMessage(rule, { self, oldSelf }, walk)) || ruleMessageOrDefault(rule);
    walk.causes.push(causeForReason(field, type, detail, rule.reason));
  }
}

function listItemKey(item: unknown, keys: string[]): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  return JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k] ?? null));
}

/** only map-type lists correlate items of the new and old object (by their list-map-keys) */
function oldListItems(node: JSONSchemaProps, old: unknown): Map<string, unknown> | undefined {
  const keys = node['x-kubernetes-list-map-keys'];
  if (node['x-kubernetes-list-type'] !== 'map' || !keys?.length || !Array.isArray(old)) return undefined;
  const byKey = new Map<string, unknown>();
  for (const item of old) {
    const k = listItemKey(item, keys);
    if (k !== undefined) byKey.set(k, item);
  }
  return byKey;
}

export function single(items: JSONSchemaProps['items']): JSONSchemaProps | undefined {
  return Array.isArray(items) ? undefined : items;
}

function validateNode(
  schema: JSONSchemaProps,
  node: JSONSchemaProps,
  value: unknown,
  old: unknown,
  path: string,
  root: boolean,
  walk: Walk,
): void {
  if (value === null || value === undefined || walk.stopped || !schemaHasRules(schema)) return;
  runRules(schema, node, value, old, path, root, walk);
  for (const sub of schema.allOf ?? []) validateNode(sub, node, value, old, path, root, walk);

  if (Array.isArray(value)) {
    const items = single(schema.items);
    const nodeItems = single(node.items);
    if (!items || !nodeItems) return;
    const olds = oldListItems(node, old);
    const keys = node['x-kubernetes-list-map-keys'] ?? [];
    value.forEach((item, i) => {
      const key = olds && listItemKey(item, keys);
      const oldItem = key === undefined ? undefined : olds?.get(key);
      validateNode(
        items,
        nodeItems,
        item,
        oldItem,
        `${path}[${i}]`,
        nodeItems['x-kubernetes-embedded-resource'] === true,
        walk,
      );
    });
    return;
  }
  if (typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const oldObj =
    typeof old === 'object' && old !== null && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const nodeAdditional = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  const correlatable = node['x-kubernetes-map-type'] !== 'atomic';
  if (additional && nodeAdditional) {
    for (const [k, v] of Object.entries(obj)) {
      const embedded = nodeAdditional['x-kubernetes-embedded-resource'] === true;
      validateNode(
        additional,
        nodeAdditional,
        v,
        correlatable ? oldObj?.[k] : undefined,
        `${path}[${k}]`,
        embedded,
        walk,
      );
    }
  }
  if (schema.properties) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties[k];
      const nodeSub = node.properties?.[k];
      if (!sub || !nodeSub) continue;
      const embedded = nodeSub['x-kubernetes-embedded-resource'] === true;
      validateNode(sub, nodeSub, v, correlatable ? oldObj?.[k] : undefined, child(path, k), embedded, walk);
    }
  }
}

/**
 * Evaluates every `x-kubernetes-validations` rule of a CRD version's structural schema against `obj` (and
 * `oldObj` on update). `fieldPath` is the path of `obj` itself, '' for a custom resource's root; causes at
 * the root carry kube's `<nil>` field. `resourceRoot` (default: fieldPath is '') applies kube's typing of a
 * resource root: apiVersion, kind, and metadata reduced to name and generateName.
 */
export function celRuleCauses(
  schema: JSONSchemaProps,
  obj: unknown,
  oldObj: unknown | undefined,
  fieldPath: string,
  opts?: { resourceRoot?: boolean },
): StatusCause[] {
  const walk: Walk = { causes: [], budget: OBJECT_COST_BUDGET, stopped: false };
  validateNode(schema, schema, obj, oldObj, fieldPath, opts?.resourceRoot ?? fieldPath === '', walk);
  return walk.causes;
}

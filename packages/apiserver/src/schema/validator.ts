// The per-version validator the API server runs on every custom resource write, in kube-apiserver's
// order: prune (decode), default (decode), then validate: schema, embedded resources, list sets/maps,
// and finally the x-kubernetes-validations CEL rules, which kube skips once a type, required, enum or
// size violation was found.
import type { StatusCause } from '../errors.ts';
import { celRuleCauses } from './cel-rules.ts';
import { compileSchema, type SchemaNode } from './compiled-schema.ts';
import { defaultNode } from './defaulting.ts';
import { fieldError } from './field-errors.ts';
import { embeddedErrors, listTypeErrors } from './list-types.ts';
import { pruneResource } from './prune.ts';
import type { JSONSchemaProps } from './types.ts';
import { validateNode } from './value-validation.ts';

export interface CrdVersionValidator {
  /** Drops unknown fields in place; returns their paths (`spec.foo`, `spec.items[0].bar`, `metadata.baz`). */
  prune(obj: Record<string, unknown>): string[];
  /** Applies schema defaults in place. */
  default(obj: unknown): void;
  /** Validates a pruned and defaulted object; on update `oldObj` enables CEL transition rules and ratcheting of unchanged values. */
  validate(obj: unknown, oldObj?: unknown): StatusCause[];
}

/** Violations after which kube does not evaluate CEL rules: the object may not have the shape the rules (and their cost estimates) assume. */
const BLOCKING_REASONS = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);
const BLOCKED_RULES_MESSAGE =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * Schema checks for a value at `prefix` (the resource itself when prefix is ''): kube-openapi validation,
 * embedded-resource apiVersion/kind, list-type uniqueness, then CEL rules unless a blocking violation was found.
 */
export function validateAgainstSchema(
  schema: JSONSchemaProps,
  node: SchemaNode,
  obj: unknown,
  oldObj: unknown,
  prefix: string,
  isResourceRoot: boolean,
): StatusCause[] {
  const out: StatusCause[] = [];
  validateNode(node, obj, '', { out, prefix }, oldObj);
  embeddedErrors(node, obj, prefix, out, isResourceRoot);
  listTypeErrors(node, obj, prefix, out);
  if (node.hasRules) {
    if (out.some((c) => BLOCKING_REASONS.has(c.reason)))
      out.push(fieldError.invalid(prefix || '<nil>', null, BLOCKED_RULES_MESSAGE));
    else out.push(...celRuleCauses(schema, obj, oldObj, prefix));
  }
  return out;
}

const validators = new WeakMap<JSONSchemaProps, CrdVersionValidator>();

/** Builds (once per schema object) the prune/default/validate trio for one CRD version's openAPIV3Schema. */
export function compileCrdVersionValidator(openAPIV3Schema: JSONSchemaProps): CrdVersionValidator {
  const cached = validators.get(openAPIV3Schema);
  if (cached) return cached;
  const root = compileSchema(openAPIV3Schema);
  const v: CrdVersionValidator = {
    prune: (obj) => pruneResource(obj, root),
    default: (obj) => defaultNode(obj, root),
    validate: (obj, oldObj) => validateAgainstSchema(openAPIV3Schema, root, obj, oldObj, '', true),
  };
  validators.set(openAPIV3Schema, v);
  return v;
}

export { applyDefaults } from './defaulting.ts';

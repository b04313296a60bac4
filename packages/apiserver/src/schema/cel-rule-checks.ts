// CRD `x-kubernetes-validations` checked when a CRD is created or updated (compileSchemaRules): every rule and
// messageExpression compiles, rules are boolean, transition rules sit where oldSelf can correlate, and
// message/reason/fieldPath are well formed, with kube-apiserver 1.32's field paths and texts. Evaluation
// against custom resources is in cel-rules.ts.
import { CelCompileError, normalizeFieldPath } from '@modelplane/apimachinery/cel';
import type { StatusCause } from '../errors.ts';
import {
  compileMessageExpression,
  compileRule,
  goValidationRule,
  invalid,
  SUPPORTED_REASONS,
  single,
} from './cel-rules.ts';
import type { JSONSchemaProps, ValidationRule } from './types.ts';

function hasNewline(s: string | undefined): boolean {
  return s?.includes('\n') === true;
}

/** the rule's expression: it compiles, yields a bool, and uses oldSelf only where objects correlate */
function ruleExpressionCauses(
  rule: ValidationRule,
  rulePath: string,
  goRule: string,
  uncorrelatable: string | undefined,
): StatusCause[] {
  const causes: StatusCause[] = [];
  try {
    const program = compileRule(rule);
    const usesOldSelf = program.identifiers.has('oldSelf');
    if (program.type !== 'bool' && program.type !== 'dyn') {
      causes.push(invalid(`${rulePath}.rule`, goRule, 'cel expression must evaluate to a bool'));
    }
    if (usesOldSelf && uncorrelatable) {
      causes.push(
        invalid(
          `${rulePath}.rule`,
          JSON.stringify(rule.rule),
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        ),
      );
    }
    if (rule.optionalOldSelf !== undefined && !usesOldSelf) {
      causes.push(
        invalid(
          `${rulePath}.optionalOldSelf`,
          String(rule.optionalOldSelf),
          'may not be set if rule does not use oldSelf',
        ),
      );
    }
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    causes.push(invalid(`${rulePath}.rule`, goRule, `compilation failed: ${err.message}`));
  }
  return causes;
}

function checkRule(
  rule: ValidationRule,
  node: JSONSchemaProps,
  rulePath: string,
  uncorrelatable: string | undefined,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const goRule = goValidationRule(rule);
  if (typeof rule.rule !== 'string' || rule.rule.trim() === '') {
    causes.push({
      reason: 'FieldValueRequired',
      field: `${rulePath}.rule`,
      message: 'Required value: rule is not specified',
    });
  } else {
    causes.push(...ruleExpressionCauses(rule, rulePath, goRule, uncorrelatable));
  }
  if (rule.message !== undefined && rule.message !== '' && rule.message.trim() === '') {
    causes.push(invalid(`${rulePath}.message`, JSON.stringify(rule.message), 'message must be non-empty if specified'));
  }
  if (hasNewline(rule.message))
    causes.push(invalid(`${rulePath}.message`, JSON.stringify(rule.message), 'message must not contain line breaks'));
  if (hasNewline(rule.rule) && !rule.message && !rule.messageExpression) {
    causes.push({
      reason: 'FieldValueRequired',
      field: `${rulePath}.message`,
      message: 'Required value: message must be specified if rule contains line breaks',
    });
  }
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    if (rule.messageExpression.trim() === '') {
      causes.push({
        reason: 'FieldValueRequired',
        field: `${rulePath}.messageExpression`,
        message: 'Required value: messageExpression must be non-empty if specified',
      });
    } else {
      try {
        const t = compileMessageExpression(rule).type;
        if (t !== 'string' && t !== 'dyn')
          causes.push(invalid(`${rulePath}.messageExpression`, goRule, 'must evaluate to a string'));
      } catch (err) {
        if (!(err instanceof CelCompileError)) throw err;
        causes.push(
          invalid(`${rulePath}.messageExpression`, goRule, `messageExpression compilation failed: ${err.message}`),
        );
      }
    }
  }
  if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) {
    const supported = SUPPORTED_REASONS.map((r) => JSON.stringify(r)).join(', ');
    causes.push({
      reason: 'FieldValueNotSupported',
      field: `${rulePath}.reason`,
      message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: ${supported}`,
    });
  }
  if (rule.fieldPath && 'error' in normalizeFieldPath(rule.fieldPath, node)) {
    causes.push(invalid(`${rulePath}.fieldPath`, JSON.stringify(rule.fieldPath), 'fieldPath must be a valid path'));
  }
  return causes;
}

function checkSchema(
  schema: JSONSchemaProps,
  path: string,
  uncorrelatable: string | undefined,
  causes: StatusCause[],
): void {
  schema['x-kubernetes-validations']?.forEach((rule, i) => {
    causes.push(...checkRule(rule, schema, `${path}.x-kubernetes-validations[${i}]`, uncorrelatable));
  });
  for (const [k, sub] of Object.entries(schema.properties ?? {}))
    checkSchema(sub, `${path}.properties[${k}]`, uncorrelatable, causes);
  const items = single(schema.items);
  if (items) {
    const itemsPath = `${path}.items`;
    checkSchema(
      items,
      itemsPath,
      uncorrelatable ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : itemsPath),
      causes,
    );
  }
  if (typeof schema.additionalProperties === 'object') {
    const apPath = `${path}.additionalProperties`;
    checkSchema(
      schema.additionalProperties,
      apPath,
      uncorrelatable ?? (schema['x-kubernetes-map-type'] === 'atomic' ? apPath : undefined),
      causes,
    );
  }
  schema.allOf?.forEach((sub, i) => {
    checkSchema(sub, `${path}.allOf[${i}]`, uncorrelatable, causes);
  });
}

/**
 * The CRD-level checks kube runs on create/update: every rule and messageExpression compiles, rules are
 * boolean, transition rules sit where oldSelf can correlate, message/reason/fieldPath are well formed.
 * `basePath` is where the schema sits in the CRD: kube reports `spec.validation.openAPIV3Schema` when all
 * versions share one schema, else `spec.versions[i].schema.openAPIV3Schema`.
 */
export function compileSchemaRules(
  schema: JSONSchemaProps,
  basePath = 'spec.validation.openAPIV3Schema',
): StatusCause[] {
  const causes: StatusCause[] = [];
  checkSchema(schema, basePath, undefined, causes);
  return causes;
}

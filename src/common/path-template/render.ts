/**
 * Rendering of `routing.pathTemplate`: literal text with `{<Kubernetes JSONPath>}` placeholders, each of which must
 * be a plain field path (fields and single indexes) yielding exactly one scalar. Filters, wildcards, recursive
 * descent, unions and range blocks are rejected so a template cannot select data other than the one field it names.
 */
import {
  findJsonPathResults,
  JsonPathError,
  type JsonPathNode,
  parseJsonPath,
} from '@modelplane/apimachinery/jsonpath';
import { normalizeRoutePath } from './normalize.ts';

/**
 * A bound on the template text itself, only against pathological input: the limit that matters is the
 * normalised path's 200 characters, so a long template that collapses to a short path (`//`, whitespace,
 * empty values) renders
 */
export const MAX_TEMPLATE_LENGTH = 16_384;
export const MAX_PLACEHOLDER_LENGTH = 256;

/** A rendering failure: the condition reason, the template's field path and the cause. */
export interface PathTemplateError {
  reason: 'PathTemplateInvalid';
  field: string;
  message: string;
}

export type PathTemplateResult = { ok: true; path: string } | { ok: false; error: PathTemplateError };

const PLACEHOLDER = /\{([^{}]*)\}/g;
// A bracketed, quoted key containing a dot: kubectl re-splits it on the dot and finds nothing.
const DOTTED_BRACKET_KEY = /\[\s*(['"])([^'"\]]*\.[^'"\]]*)\1\s*\]/g;
const UNESCAPED_DOT = /(?<!\\)\./;
const UNESCAPED_DOTS = /(?<!\\)\./g;

interface Placeholder {
  start: number;
  end: number;
  expression: string;
}

/** Static checks of a template (no object needed); the errors name `field`. */
export function validatePathTemplate(template: string, field: string): PathTemplateError[] {
  const parsed = splitTemplate(template);
  if (typeof parsed === 'string') return [invalid(field, parsed)];
  const errors: PathTemplateError[] = [];
  for (const placeholder of parsed) {
    const problem = checkPlaceholder(placeholder.expression);
    if (problem) errors.push(invalid(field, problem));
  }
  return errors;
}

/** Renders and normalises a template against obj (usually the AIMService). */
export function renderPathTemplate(template: string, obj: unknown, field: string): PathTemplateResult {
  const parsed = splitTemplate(template);
  if (typeof parsed === 'string') return fail(field, parsed);
  let raw = '';
  let cursor = 0;
  for (const placeholder of parsed) {
    const problem = checkPlaceholder(placeholder.expression);
    if (problem) return fail(field, problem);
    const value = evaluatePlaceholder(placeholder.expression, obj);
    if (!value.ok) return fail(field, value.message);
    raw += template.slice(cursor, placeholder.start) + value.text;
    cursor = placeholder.end;
  }
  raw += template.slice(cursor);
  const normalized = normalizeRoutePath(raw);
  return normalized.ok
    ? { ok: true, path: normalized.path }
    : fail(field, `rendered ${JSON.stringify(raw)}: ${normalized.message}`);
}

function splitTemplate(template: string): Placeholder[] | string {
  if (template.length > MAX_TEMPLATE_LENGTH) {
    return `template is ${template.length} characters, more than the maximum of ${MAX_TEMPLATE_LENGTH}`;
  }
  const placeholders: Placeholder[] = [];
  let literalStart = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const problem = strayBrace(template.slice(literalStart, match.index), literalStart);
    if (problem) return problem;
    placeholders.push({ start: match.index, end: match.index + match[0].length, expression: match[1]!.trim() });
    literalStart = match.index + match[0].length;
  }
  return strayBrace(template.slice(literalStart), literalStart) ?? placeholders;
}

function strayBrace(literal: string, offset: number): string | undefined {
  const at = literal.search(/[{}]/);
  if (at < 0) return undefined;
  return `unbalanced ${JSON.stringify(literal[at])} at offset ${offset + at}; placeholders are {<jsonpath>} and cannot nest`;
}

function checkPlaceholder(expression: string): string | undefined {
  if (expression === '') return 'empty placeholder {}';
  if (expression.length > MAX_PLACEHOLDER_LENGTH) {
    return `placeholder is ${expression.length} characters, more than the maximum of ${MAX_PLACEHOLDER_LENGTH}`;
  }
  for (const match of expression.matchAll(DOTTED_BRACKET_KEY)) {
    // `['org\.example/team']` is already escaped and resolves; only a bare dot is split by kubectl
    if (!UNESCAPED_DOT.test(match[2]!)) continue;
    const escaped = expression.replace(DOTTED_BRACKET_KEY, (all, _q, key: string) =>
      UNESCAPED_DOT.test(key) ? `.${key.replace(UNESCAPED_DOTS, '\\.')}` : all,
    );
    return (
      `placeholder {${expression}}: bracketed key ${match[0]} contains a dot, which Kubernetes JSONPath splits into ` +
      `separate fields (it resolves to nothing); write {${escaped}} instead`
    );
  }
  let nodes: readonly JsonPathNode[];
  try {
    const parsed = parseJsonPath(`{${expression}}`);
    const first = parsed.nodes[0];
    if (parsed.nodes.length !== 1 || first?.type !== 'list') return `placeholder {${expression}} is not one expression`;
    nodes = first.nodes;
  } catch (err) {
    if (err instanceof JsonPathError) return `invalid jsonpath expression {${expression}}: ${err.message}`;
    throw err;
  }
  for (const node of nodes) {
    const problem = disallowedNode(node);
    if (problem)
      return `placeholder {${expression}}: ${problem}; only field paths such as .metadata.labels.team are allowed`;
  }
  return undefined;
}

function disallowedNode(node: JsonPathNode): string | undefined {
  switch (node.type) {
    case 'field':
      return undefined;
    case 'array':
      return node.params[0].known && node.params[1].derived ? undefined : 'slices select several values';
    case 'filter':
      return 'filters ?() are not allowed';
    case 'recursive':
      return 'recursive descent .. is not allowed';
    case 'wildcard':
      return 'wildcards * are not allowed';
    case 'union':
      return 'unions are not allowed';
    case 'identifier':
      return `${node.name} blocks are not allowed`;
    default:
      return `${node.type} literals are not allowed`;
  }
}

type Evaluated = { ok: true; text: string } | { ok: false; message: string };

function evaluatePlaceholder(expression: string, obj: unknown): Evaluated {
  let results: unknown[];
  try {
    results = findJsonPathResults(`{${expression}}`, obj, { allowMissingKeys: false }).flat();
  } catch (err) {
    if (err instanceof JsonPathError) return { ok: false, message: `placeholder {${expression}}: ${err.message}` };
    throw err;
  }
  if (results.length === 0) return { ok: false, message: `placeholder {${expression}} returned no results` };
  if (results.length > 1) return { ok: false, message: `placeholder {${expression}} returned multiple results` };
  const value = results[0];
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else return { ok: false, message: `placeholder {${expression}} is not a string, number or boolean` };
  // an empty value (a label set to "") is an empty segment, which normalisation drops like `//`
  return { ok: true, text };
}

function invalid(field: string, message: string): PathTemplateError {
  return { reason: 'PathTemplateInvalid', field, message };
}

function fail(field: string, message: string): PathTemplateResult {
  return { ok: false, error: invalid(field, message) };
}

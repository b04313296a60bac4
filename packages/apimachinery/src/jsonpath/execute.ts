/** Public entry points: memoised parsing, kubectl-identical printing, raw results and kubectl's relaxed paths. */
import { GoScalar, type JsonPathTemplate, NO_VALUE } from './ast.ts';
import { JsonPathError } from './errors.ts';
import { findResults } from './evaluate.ts';
import { resultText } from './go-format.ts';
import { parseTemplate } from './parser.ts';

export interface JsonPathOptions {
  /** kubectl's --allow-missing-template-keys; default true. When false a missing key fails with `<key> is not found`. */
  allowMissingKeys?: boolean;
}

const CACHE_LIMIT = 1024;
const parsedTemplates = new Map<string, JsonPathTemplate>();

/** Parses a template (memoised; the result is deeply frozen and safe to share). Throws JsonPathError. */
export function parseJsonPath(template: string): JsonPathTemplate {
  let parsed = parsedTemplates.get(template);
  if (parsed === undefined) {
    parsed = parseTemplate(template);
    if (parsedTemplates.size >= CACHE_LIMIT) parsedTemplates.delete(parsedTemplates.keys().next().value!);
    parsedTemplates.set(template, parsed);
  }
  return parsed;
}

/** What `kubectl get -o jsonpath=<template>` prints for data (no trailing newline). Throws JsonPathError. */
export function executeJsonPath(template: string | JsonPathTemplate, data: unknown, opts?: JsonPathOptions): string {
  const parsed = typeof template === 'string' ? parseJsonPath(template) : template;
  const blocks = findResults(parsed, data, opts?.allowMissingKeys ?? true);
  let out = '';
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    for (let i = 0; i < block.length; i++) out += i === 0 ? resultText(block[i]) : ` ${resultText(block[i])}`;
  }
  return out;
}

/**
 * Raw result values per top-level block (literal text outside `{}` is a block of one string). Float literals and
 * string bytes come back as numbers, a null range element as undefined.
 */
export function findJsonPathResults(
  template: string | JsonPathTemplate,
  data: unknown,
  opts?: JsonPathOptions,
): unknown[][] {
  const parsed = typeof template === 'string' ? parseJsonPath(template) : template;
  const blocks = findResults(parsed, data, opts?.allowMissingKeys ?? true);
  for (const block of blocks) {
    for (let i = 0; i < block.length; i++) block[i] = toPlainValue(block[i]);
  }
  return blocks;
}

export function toPlainValue(v: unknown): unknown {
  if (v instanceof GoScalar) return v.value;
  return v === NO_VALUE ? undefined : v;
}

const RELAXED_PATH = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/;

/**
 * kubectl's RelaxedJSONPathExpression (custom-columns): `a.b`, `.a.b`, `{a.b}` and `{.a.b}` all become `{.a.b}`;
 * '' stays ''. Anything else (e.g. two blocks) throws JsonPathError with kubectl's message.
 */
export function relaxedJsonPath(path: string): string {
  if (path === '') return path;
  const match = RELAXED_PATH.exec(path);
  if (!match) {
    throw new JsonPathError(
      "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
      'parse',
      path,
    );
  }
  return `{.${match[1] || match[2]}}`;
}

// The relative JSON path of a validation rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`,
// `['a.b']`), checked against the schema and turned into the field-path text kube reports, as
// apiextensions-apiserver's ValidFieldPath does: named properties join with '.', map keys go in brackets,
// and list indexes are not allowed.

import type { OpenAPISchemaLike } from './convert.ts';

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

function tokenize(path: string): string[] | string {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      tokens.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      if (j >= path.length) return 'unterminated string literal';
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

function unquote(token: string): string | undefined {
  let bad = false;
  const out = token.slice(1, -1).replace(/\\(.)/g, (_, d: string) => {
    const r = ESCAPES[d];
    if (r === undefined) bad = true;
    return r ?? '';
  });
  return bad ? undefined : out;
}

/** the normalized path (e.g. `spec.labels[team]`), or an error message when the path is invalid */
export function normalizeFieldPath(jsonPath: string, schema: OpenAPISchemaLike): { path: string } | { error: string } {
  const tokens = tokenize(jsonPath);
  if (typeof tokens === 'string') return { error: tokens };
  let node: OpenAPISchemaLike | undefined = schema;
  let out = '';
  const step = (name: string): string | undefined => {
    if (node?.properties) {
      node = node.properties[name];
      if (!node) return 'does not refer to a valid field';
      out = out ? `${out}.${name}` : name;
    } else if (typeof node?.additionalProperties === 'object') {
      node = node.additionalProperties;
      out = `${out}[${name}]`;
    } else {
      return 'does not refer to a valid field';
    }
    return undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    let err: string | undefined;
    if (tok === '.') {
      const name = tokens[++i];
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      err = step(name);
    } else if (tok === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { error: `expected single quoted string but got ${quoted}` };
      }
      const name = unquote(quoted);
      if (name === undefined) return { error: 'invalid string literal' };
      err = step(name);
      const close = tokens[++i];
      if (close !== ']')
        return { error: close === undefined ? 'unexpected end of JSON path' : `expected ] but got ${close}` };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
    if (err) return { error: err };
  }
  return { path: out };
}

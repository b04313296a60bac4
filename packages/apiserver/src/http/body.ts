// Request bodies: size-limited reading and JSON/YAML decoding with precise errors.
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { errors, StatusError } from '../errors.ts';
import { goJsonSyntaxError } from './go-json-error.ts';
import { decodeKubeProtobuf, isKubeProtobuf } from './protobuf/index.ts';

/** kube-apiserver's limit for a request body (3 MiB) */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      // Drain so the connection can be reused, but refuse at once.
      req.resume();
      reject(errors.requestEntityTooLarge(`Request entity too large: limit is ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(errors.requestEntityTooLarge(`Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      // (a body that arrived in one chunk, as most do, needs no copy)
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(errors.badRequest(`error reading request body: ${err.message}`));
    });
  });
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Decodes a JSON (or, for YAML content types, YAML) body into a value. */
/**
 * A JSON body that does not parse, with Go's wording of why (http/go-json-error.ts). It is a 400 as it
 * stands; the handlers reword it as kube-apiserver does for what the body was meant to be (an object, a patch).
 */
export class MalformedJson extends StatusError {
  constructor(
    readonly text: string,
    readonly goMessage: string,
  ) {
    super(400, 'BadRequest', `error decoding JSON body: ${goMessage}`);
  }
}

export function decodeBody(buf: Buffer, contentType: string | undefined): unknown {
  // Typed Go clients (kubectl create, auth can-i, create token, drain) send Kubernetes protobuf.
  if (isKubeProtobuf(contentType)) {
    if (buf.length === 0) throw errors.badRequest('the request body is empty');
    let value: unknown;
    try {
      value = decodeKubeProtobuf(buf);
    } catch (e) {
      throw errors.badRequest(`error decoding protobuf body: ${(e as Error).message}`);
    }
    // (map keys, such as labels, are the only names a protobuf body chooses)
    return buf.includes('__proto__') ? checkedBody(value) : value;
  }
  const text = buf.toString('utf8');
  if (text.trim() === '') throw errors.badRequest('the request body is empty');
  const type = mediaType(contentType);
  const yaml = type.includes('yaml');
  if (!yaml) return decodeJson(text);
  checkNestingDepth(text);
  checkYamlNesting(text);
  if (text.trimStart().startsWith('{') || text.trimStart().startsWith('[')) {
    try {
      return checkedBody(JSON.parse(text));
    } catch (e) {
      if (e instanceof StatusError) throw e;
      // not JSON after all: YAML may still read it
    }
  }
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100, uniqueKeys: true });
  } catch (e) {
    throw errors.badRequest(`error decoding YAML body: ${(e as Error).message}`);
  }
  return checkedBody(value);
}

/** Bodies at least this long have their nesting checked before parsing, so a huge deep one is refused at once. */
const PRESCAN_BYTES = 64 * 1024;

/**
 * JSON.parse, with the nesting limit checked on the parsed value: for the small bodies of most requests
 * that walks a few dozen nodes instead of scanning every character. Errors are the same as checking first
 * (an invalid body too deep is reported as too deep).
 */
function decodeJson(text: string): unknown {
  if (text.length >= PRESCAN_BYTES) checkNestingDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    checkNestingDepth(text);
    throw new MalformedJson(text, goJsonSyntaxError(text) ?? (e as Error).message);
  }
  if (text.length > MAX_NESTING_DEPTH && tooDeep(value, 0)) throw nestingError();
  // (the key may be spelt with \u escapes)
  if (text.includes('__proto__') || text.includes('\\u')) checkedBody(value);
  return value;
}

/**
 * Refuses a `__proto__` field anywhere in a body. JSON.parse keeps it as a plain own property, so it cannot
 * pollute Object.prototype, but every later lookup by field name (`schema.properties[key]`, merges, managed
 * fields) would see the prototype instead. kube-apiserver would treat it as an unknown field; no Kubernetes
 * object has one.
 */
function checkedBody(value: unknown): unknown {
  const at = protoKeyPath(value, 0);
  if (at)
    throw errors.badRequest(
      `the request body has a field named "__proto__" at ${at}: this API server refuses that name in any object; remove or rename the field`,
    );
  return value;
}

function protoKeyPath(v: unknown, depth: number): string | undefined {
  if (v === null || typeof v !== 'object' || depth > MAX_NESTING_DEPTH) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const at = protoKeyPath(v[i], depth + 1);
      if (at) return `[${i}]${at.startsWith('[') ? '' : '.'}${at}`;
    }
    return undefined;
  }
  for (const k of Object.keys(v)) {
    if (k === '__proto__') return k;
    const at = protoKeyPath((v as Record<string, unknown>)[k], depth + 1);
    if (at) return `${k}${at.startsWith('[') ? '' : '.'}${at}`;
  }
  return undefined;
}

/** whether a decoded value nests objects/arrays deeper than MAX_NESTING_DEPTH (stops descending there) */
function tooDeep(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (depth >= MAX_NESTING_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (tooDeep(x, depth + 1)) return true;
  } else {
    for (const k in v) if (tooDeep((v as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}

function nestingError() {
  return errors.badRequest(`the request body exceeds the maximum nesting depth of ${MAX_NESTING_DEPTH}`);
}

/** A body that must be a Kubernetes object (JSON object with apiVersion and kind). */
export function decodeObject(buf: Buffer, contentType: string | undefined): Record<string, unknown> {
  const value = decodeBody(buf, contentType);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(
      `the request body must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

/** Deeper bodies are refused before parsing: every later step (cloning, merging, validation) recurses. */
export const MAX_NESTING_DEPTH = 1000;

/**
 * The YAML parser recurses per level and, driven into a stack overflow twice, can take V8 down with it, so
 * YAML bodies get a lower limit. Block nesting needs at least one column of indentation per level (a `- `
 * two), so the column where a line's content starts bounds its block depth; flow brackets add to it.
 */
export const MAX_YAML_NESTING_DEPTH = 500;

function checkYamlNesting(text: string): void {
  let maxColumn = 0;
  let column = 0;
  let atLineStart = true;
  let flow = 0;
  let maxFlow = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      atLineStart = true;
      column = 0;
      continue;
    }
    if (atLineStart) {
      if (c === 32 || c === 9 || c === 45) {
        column++;
        continue;
      }
      atLineStart = false;
      if (column > maxColumn) maxColumn = column;
    }
    if (c === 91 || c === 123) {
      if (++flow > maxFlow) maxFlow = flow;
    } else if (c === 93 || c === 125) flow--;
  }
  if (maxColumn + maxFlow > MAX_YAML_NESTING_DEPTH) {
    throw errors.badRequest(
      `the YAML request body nests deeper than the maximum of ${MAX_YAML_NESTING_DEPTH} levels (indentation plus brackets)`,
    );
  }
}

function checkNestingDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_NESTING_DEPTH) throw nestingError();
    } else if (c === 125 || c === 93) depth--;
  }
}

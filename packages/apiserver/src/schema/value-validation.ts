// Schema validation of a custom resource with kube-apiserver's semantics and wording: a port of the
// behaviour of k8s.io/kube-openapi/pkg/validation/validate (type, allOf/anyOf/oneOf/not, string, format,
// number, array, enum, object validators, in that order) plus apiextensions' conversion of its errors
// into field causes. `name` is kube-openapi's path (`spec.ports[0].port`), used both in messages and,
// below the caller's prefix, as the cause's field.
import type { StatusCause } from '../errors.ts';
import { isPlainObject, jsonEqual, jsonType, type SchemaNode } from './compiled-schema.ts';
import { fieldError, goFloat, goQuote } from './field-errors.ts';
import { isQuantityString, NUMBER_FORMAT_RANGES } from './formats.ts';

export interface ValidationContext {
  out: StatusCause[];
  /** field path the whole validated value sits at; '' for a custom resource (kube passes a nil path) */
  prefix: string;
}

function causeField(ctx: ValidationContext, name: string): string {
  const n = name.startsWith('.') ? name.slice(1) : name;
  if (n === '') return ctx.prefix === '' ? '<nil>' : ctx.prefix;
  return ctx.prefix === '' ? n : `${ctx.prefix}.${n}`;
}

/** Errors kube-openapi raises as plain errors land on the base path with an empty value. */
function compositeError(ctx: ValidationContext, message: string): void {
  ctx.out.push(fieldError.invalid(ctx.prefix === '' ? '<nil>' : ctx.prefix, '', message));
}

function invalidType(ctx: ValidationContext, name: string, typeName: string, value: string): void {
  ctx.out.push(
    fieldError.typeInvalid(
      causeField(ctx, name),
      value,
      `${name} in body must be of type ${typeName}: ${goQuote(value)}`,
    ),
  );
}

function invalid(ctx: ValidationContext, name: string, value: unknown, message: string): void {
  ctx.out.push(fieldError.invalid(causeField(ctx, name), value, `${name} in body ${message}`));
}

/** Go's json.Marshal of an enum value: object keys sorted. */
function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** swag.IsFloat64AJSONInteger: integral within a relative tolerance of 1e-9. */
function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  const g = Math.trunc(f);
  if (f === g) return true;
  const diff = Math.abs(f - g);
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

function checkType(node: SchemaNode, data: unknown, name: string, ctx: ValidationContext): void {
  if (node.types.length === 0 && node.format === '') return;
  const schType = jsonType(data);
  const kind = schType === 'string' || schType === 'array' ? 'text' : 'other';
  const typeOk = node.types.includes(schType) || (schType === 'integer' && node.types.includes('number'));
  if (kind === 'other' && node.format !== '' && !typeOk) {
    const dataFormat = schType === 'integer' ? 'int64' : schType === 'number' ? 'float64' : '';
    if (dataFormat !== node.format) {
      invalidType(ctx, name, node.format, dataFormat);
      return;
    }
  }
  const numeric = node.types.includes('number') || node.types.includes('integer');
  if (!numeric && node.format !== '' && kind === 'text') return;
  if (node.types.length > 0 && !typeOk) invalidType(ctx, name, node.types.join(','), schType);
}

function checkJunctors(node: SchemaNode, data: unknown, name: string, ctx: ValidationContext, old: unknown): void {
  const branch = (n: SchemaNode): StatusCause[] => {
    const sub: ValidationContext = { out: [], prefix: ctx.prefix };
    validateNode(n, data, name, sub, old);
    return sub.out;
  };
  if (node.anyOf.length > 0) {
    let best: StatusCause[] | null = null;
    let ok = false;
    for (const n of node.anyOf) {
      const errs = branch(n);
      if (errs.length === 0) {
        ok = true;
        break;
      }
      if (best === null || errs.length < best.length) best = errs;
    }
    if (!ok) {
      compositeError(ctx, `${goQuote(name)} must validate at least one schema (anyOf)`);
      ctx.out.push(...best!);
    }
  }
  if (node.oneOf.length > 0) {
    let valid = 0;
    let best: StatusCause[] | null = null;
    for (const n of node.oneOf) {
      const errs = branch(n);
      if (errs.length === 0) valid++;
      else if (valid === 0 && (best === null || errs.length < best.length)) best = errs;
    }
    if (valid !== 1) {
      compositeError(
        ctx,
        `${goQuote(name)} must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`,
      );
      if (valid === 0 && best) ctx.out.push(...best);
    }
  }
  if (node.allOf.length > 0) {
    let valid = 0;
    for (const n of node.allOf) {
      const errs = branch(n);
      if (errs.length === 0) valid++;
      ctx.out.push(...errs);
    }
    if (valid !== node.allOf.length)
      compositeError(
        ctx,
        `${goQuote(name)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`,
      );
  }
  if (node.not !== null && branch(node.not).length === 0)
    compositeError(ctx, `${goQuote(name)} must not validate the schema (not)`);
}

/**
 * Go's utf8.RuneCountInString of the string as decoded: a surrogate pair is one rune, a lone surrogate
 * (which Go's decoder turns into U+FFFD) one too. Counted in place: spreading a long string into an
 * array of characters was the most expensive step of validating a typical custom resource.
 */
function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function checkString(node: SchemaNode, s: string, name: string, ctx: ValidationContext): void {
  const { maxLength, minLength, pattern } = node.schema;
  // A string has between length/2 and length runes: count them only when a bound falls in that range.
  if ((maxLength !== undefined && s.length > maxLength) || (minLength !== undefined && s.length < 2 * minLength)) {
    const runes = runeCount(s);
    if (maxLength !== undefined && runes > maxLength) {
      ctx.out.push(fieldError.tooLongBytes(causeField(ctx, name), maxLength));
      return;
    }
    if (minLength !== undefined && runes < minLength) {
      invalid(ctx, name, s, `should be at least ${minLength} chars long`);
      return;
    }
  }
  if (node.pattern !== null && !node.pattern.test(s)) invalid(ctx, name, s, `should match '${pattern}'`);
}

function checkFormat(node: SchemaNode, s: string, name: string, ctx: ValidationContext): void {
  if (node.formatCheck !== null && !node.formatCheck(s)) {
    ctx.out.push(
      fieldError.typeInvalid(causeField(ctx, name), s, `${name} in body must be of type ${node.format}: ${goQuote(s)}`),
    );
  } else if (node.extraFormat === 'quantity' && !isQuantityString(s)) {
    ctx.out.push(
      fieldError.typeInvalid(causeField(ctx, name), s, `${name} in body must be of type quantity: ${goQuote(s)}`),
    );
  }
}

function checkNumber(node: SchemaNode, n: number, name: string, ctx: ValidationContext): void {
  const { multipleOf, maximum, minimum, exclusiveMaximum, exclusiveMinimum } = node.schema;
  const isInt = Number.isInteger(n);
  const range = NUMBER_FORMAT_RANGES[node.extraFormat];
  if (range && (n < range.min || n > range.max || (range.type === 'integer' && !isInt))) {
    ctx.out.push(
      fieldError.invalid(
        causeField(ctx, name),
        n,
        `Checked value must be of type ${range.type} with format ${node.extraFormat} in ${name}`,
      ),
    );
  }
  if (multipleOf !== undefined) {
    if (isInt && Number.isInteger(multipleOf) && multipleOf > 0) {
      if (n % multipleOf !== 0) invalid(ctx, name, n, `should be a multiple of ${multipleOf}`);
    } else if (multipleOf < 0) {
      ctx.out.push(
        fieldError.invalid(
          causeField(ctx, name),
          n,
          `factor MultipleOf declared for ${name} must be positive: ${goFloat(multipleOf)}`,
        ),
      );
    } else if (multipleOf > 0 && !isJsonInteger(multipleOf < 1 ? (1 / multipleOf) * n : n / multipleOf)) {
      invalid(ctx, name, n, `should be a multiple of ${goFloat(multipleOf)}`);
    }
  }
  // integers compare against the bound truncated to int64 and print it as an integer, floats as Go's %v
  if (minimum !== undefined) {
    const bound = isInt ? Math.trunc(minimum) : minimum;
    if (exclusiveMinimum ? n <= bound : n < bound) {
      invalid(
        ctx,
        name,
        n,
        `should be greater than ${exclusiveMinimum ? '' : 'or equal to '}${isInt ? String(bound) : goFloat(bound)}`,
      );
    }
  }
  if (maximum !== undefined) {
    const bound = isInt ? Math.trunc(maximum) : maximum;
    if (exclusiveMaximum ? n >= bound : n > bound) {
      invalid(
        ctx,
        name,
        n,
        `should be less than ${exclusiveMaximum ? '' : 'or equal to '}${isInt ? String(bound) : goFloat(bound)}`,
      );
    }
  }
}

/** Map-type lists correlate new items with old ones by their keys; other lists do not correlate. */
function oldListItems(node: SchemaNode, a: unknown[], old: unknown): unknown[] | undefined {
  if (node.listType !== 'map' || !Array.isArray(old) || node.listMapKeys.length === 0) return undefined;
  const keyOf = (x: unknown) =>
    isPlainObject(x) ? JSON.stringify(node.listMapKeys.map((k) => x[k] ?? null)) : undefined;
  const byKey = new Map<string, unknown>();
  for (const o of old) {
    const k = keyOf(o);
    if (k !== undefined) byKey.set(k, o);
  }
  return a.map((x) => {
    const k = keyOf(x);
    return k === undefined ? undefined : byKey.get(k);
  });
}

function checkArray(node: SchemaNode, a: unknown[], name: string, ctx: ValidationContext, old: unknown): void {
  if (node.items !== null) {
    const olds = old === undefined ? undefined : oldListItems(node, a, old);
    for (let i = 0; i < a.length; i++) validateNode(node.items, a[i], `${name}[${i}]`, ctx, olds?.[i]);
  }
  const { minItems, maxItems, uniqueItems } = node.schema;
  if (minItems !== undefined && a.length < minItems)
    invalid(ctx, name, a.length, `should have at least ${minItems} items`);
  if (maxItems !== undefined && a.length > maxItems)
    ctx.out.push(fieldError.tooMany(causeField(ctx, name), a.length, maxItems));
  if (uniqueItems && a.some((x, i) => a.findIndex((y) => jsonEqual(x, y)) !== i))
    invalid(ctx, name, '', "shouldn't contain duplicates");
}

function checkEnum(node: SchemaNode, data: unknown, name: string, ctx: ValidationContext): void {
  const values = node.enumValues;
  if (values === null || values.length === 0) return;
  if (data !== null && data !== undefined && values.some((e) => jsonEqual(data, e))) return;
  const supported = values.map((v) => (typeof v === 'string' ? v : goJson(v)));
  ctx.out.push(fieldError.notSupported(causeField(ctx, name), data, supported));
}

function checkObject(
  node: SchemaNode,
  obj: Record<string, unknown>,
  name: string,
  ctx: ValidationContext,
  old: unknown,
): void {
  const oldObj = isPlainObject(old) ? old : undefined;
  const { minProperties, maxProperties } = node.schema;
  if (minProperties !== undefined || maxProperties !== undefined) {
    const n = Object.keys(obj).length;
    if (minProperties !== undefined && n < minProperties) {
      invalid(ctx, name, n, `should have at least ${minProperties} properties`);
      return;
    }
    if (maxProperties !== undefined && n > maxProperties) {
      ctx.out.push(fieldError.tooMany(causeField(ctx, name), n, maxProperties));
      return;
    }
  }
  const props = node.properties;
  if (node.additional !== null) {
    for (const k in obj)
      if (props === null || !props.has(k)) validateNode(node.additional, obj[k], `${name}.${k}`, ctx, oldObj?.[k]);
  }
  if (props !== null) {
    for (const [k, prop] of node.propertyList) {
      if (Object.hasOwn(obj, k)) validateNode(prop, obj[k], name === '' ? k : `${name}.${k}`, ctx, oldObj?.[k]);
    }
  }
  for (const k of node.required)
    if (!Object.hasOwn(obj, k)) ctx.out.push(fieldError.required(causeField(ctx, `${name}.${k}`)));
}

/**
 * Validates `data` against one schema node, appending kube-worded causes to ctx.out. `old` is the
 * correlated value of the object being updated (undefined when there is none): errors found in a value
 * that did not change are dropped, as kube's CRD validation ratcheting does, so objects stored under an
 * older, looser schema can still be updated.
 */
export function validateNode(
  node: SchemaNode,
  data: unknown,
  name: string,
  ctx: ValidationContext,
  old?: unknown,
): void {
  const before = ctx.out.length;
  if (data === null || data === undefined) {
    if (node.types.length > 0 && !node.nullable) invalidType(ctx, name, node.types.join(','), 'null');
    checkEnum(node, null, name, ctx);
  } else {
    checkType(node, data, name, ctx);
    if (node.anyOf.length > 0 || node.oneOf.length > 0 || node.allOf.length > 0 || node.not !== null)
      checkJunctors(node, data, name, ctx, old);
    if (typeof data === 'string') {
      checkString(node, data, name, ctx);
      checkFormat(node, data, name, ctx);
    } else if (typeof data === 'number') {
      checkNumber(node, data, name, ctx);
    } else if (Array.isArray(data)) {
      checkArray(node, data, name, ctx, old);
    }
    checkEnum(node, data, name, ctx);
    if (isPlainObject(data)) checkObject(node, data, name, ctx, old);
  }
  if (old !== undefined && ctx.out.length > before && jsonEqual(data, old)) ctx.out.length = before;
}

// config.yaml checked against the server it targets (docs/llamastack.md, "Checked against the server"):
// the JSON Schemas of the whole config and of every provider type's config, exported from the published
// llama-stack package by scripts/llama-stack/export-schema.sh and committed under schema/. The check reads
// them the way the server's pydantic models read a config: numbers and booleans may come as strings (lax
// mode), and a value holding `${env.…}` is only known once the server substitutes it, so it passes as any
// scalar. It returns the first error with its path, e.g. `providers.inference[0].config.base_url: …`.
import { readFileSync } from 'node:fs';

type Schema = Record<string, any>;
interface ServerSchema {
  llamaStackVersion: string;
  /** the API names the server knows (config.yaml's `apis` and `providers` keys) */
  apis: string[];
  config: Schema;
  providers: Record<string, Record<string, Schema>>;
}

// read beside this module: the image build copies the directories modules read this way next to the bundle
const DIR = new URL('./schema/', import.meta.url);
/** the server releases there is a schema for, newest first */
export const SCHEMA_VERSIONS = ['0.7.3'] as const;
const schemas = new Map<string, ServerSchema>();

function schemaFor(version: string): ServerSchema | undefined {
  if (!(SCHEMA_VERSIONS as readonly string[]).includes(version)) return undefined;
  let s = schemas.get(version);
  if (!s) {
    s = JSON.parse(readFileSync(new URL(`llama-stack-${version}.json`, DIR), 'utf8')) as ServerSchema;
    schemas.set(version, s);
  }
  return s;
}

const isPlaceholder = (v: unknown) => typeof v === 'string' && v.includes('${env.');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
const child = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** pydantic's lax mode: the JSON types a value may be read as */
function fitsType(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v));
    case 'number':
      return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
    case 'boolean':
      return (
        typeof v === 'boolean' ||
        v === 0 ||
        v === 1 ||
        (typeof v === 'string' && /^(true|false|yes|no|on|off|1|0|t|f|y|n)$/i.test(v))
      );
    case 'null':
      return v === null;
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

class Checker {
  constructor(private readonly root: Schema) {}

  /** the first error of `v` against `s` at `path`, or undefined */
  check(s: Schema, v: unknown, path: string): string | undefined {
    if (s.$ref) return this.check(this.resolve(s.$ref), v, path);
    if (isPlaceholder(v) && !this.onlyContainers(s)) return undefined;
    if (s.anyOf || s.oneOf) return this.union(s, v, path);
    if (s.const !== undefined && v !== s.const) return `${path}: must be ${show(s.const)}, got ${show(v)}`;
    if (s.enum && !s.enum.includes(v)) return `${path}: must be one of ${s.enum.map(show).join(', ')}, got ${show(v)}`;
    if (s.type && !fitsType(s.type, v)) return `${path}: expected ${s.type}, got ${show(v)}`;
    if (typeof v === 'string' && s.maxLength !== undefined && v.length > s.maxLength)
      return `${path}: longer than ${s.maxLength} characters`;
    if (typeof v === 'number' && s.minimum !== undefined && v < s.minimum)
      return `${path}: below the minimum ${s.minimum}`;
    if (typeof v === 'number' && s.maximum !== undefined && v > s.maximum)
      return `${path}: above the maximum ${s.maximum}`;
    if (Array.isArray(v) && s.items) {
      for (const [i, item] of v.entries()) {
        const e = this.check(s.items, item, child(path, i));
        if (e) return e;
      }
    }
    if (isObject(v)) return this.object(s, v, path);
    return undefined;
  }

  private object(s: Schema, v: Record<string, unknown>, path: string): string | undefined {
    for (const r of s.required ?? []) if (!(r in v)) return `${child(path, r)}: required`;
    for (const [k, item] of Object.entries(v)) {
      const prop = s.properties?.[k];
      const sub = prop ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (sub) {
        const e = this.check(sub, item, child(path, k));
        if (e) return e;
      } else if (s.additionalProperties === false) return `${child(path, k)}: unknown field`;
    }
    return undefined;
  }

  private union(s: Schema, v: unknown, path: string): string | undefined {
    const branches: Schema[] = s.anyOf ?? s.oneOf;
    const d = s.discriminator;
    if (d && isObject(v)) {
      const tag = v[d.propertyName];
      const ref = d.mapping?.[String(tag)];
      if (!ref)
        return `${child(path, d.propertyName)}: must be one of ${Object.keys(d.mapping ?? {}).join(', ')}, got ${show(tag)}`;
      return this.check({ $ref: ref }, v, path);
    }
    const errors = branches.map((b) => this.check(b, v, path));
    if (errors.some((e) => e === undefined)) return undefined;
    // the error of a branch of the value's own JSON type says most (an object's field, not "expected null")
    const own = branches.findIndex((b) => this.kind(b) === jsonKind(v));
    return errors[Math.max(own, 0)];
  }

  private kind(s: Schema): string | undefined {
    const r = s.$ref ? this.resolve(s.$ref) : s;
    return r.type ?? (r.properties ? 'object' : undefined);
  }

  private onlyContainers(s: Schema): boolean {
    const r = s.$ref ? this.resolve(s.$ref) : s;
    return r.type === 'object' || r.type === 'array';
  }

  private resolve(ref: string): Schema {
    const name = ref.replace(/^#\/\$defs\//, '');
    const found = this.root.$defs?.[name];
    if (!found) throw new Error(`config schema: unresolved ${ref}`);
    return found;
  }
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** an API the server does not have makes it exit at start (its `apis` list and `providers` keys) */
function checkApis(schema: ServerSchema, config: Record<string, unknown>, version: string): string | undefined {
  const known = (api: unknown) => isPlaceholder(api) || schema.apis.includes(String(api));
  const apis = Array.isArray(config.apis) ? config.apis : [];
  const i = apis.findIndex((a) => !known(a));
  if (i >= 0) return `apis[${i}]: ${show(apis[i])} is not an API of Llama Stack ${version}`;
  const unknown = Object.keys(isObject(config.providers) ? config.providers : {}).find((a) => !known(a));
  return unknown === undefined
    ? undefined
    : `providers.${unknown}: "${unknown}" is not an API of Llama Stack ${version}`;
}

function checkProviders(schema: ServerSchema, providers: unknown, version: string): string | undefined {
  if (!isObject(providers)) return undefined;
  for (const [api, list] of Object.entries(providers)) {
    if (!Array.isArray(list)) continue;
    for (const [i, p] of list.entries()) {
      if (!isObject(p) || isPlaceholder(p.provider_type)) continue;
      const path = `providers.${api}[${i}]`;
      const types = schema.providers[api] ?? {};
      const configSchema = types[String(p.provider_type)];
      // an external provider (a module of its own) brings its own config model
      if (!configSchema) {
        if (p.module !== undefined) continue;
        return `${path}.provider_type: ${show(p.provider_type)} is not a provider of the ${api} API in Llama Stack ${version} (its providers: ${Object.keys(types).join(', ') || 'none'})`;
      }
      const e = new Checker(configSchema).check(configSchema, p.config ?? {}, `${path}.config`);
      if (e) return e;
    }
  }
  return undefined;
}

/** the config fields the server's provider `providerType` of `api` has, or undefined when it is not known */
export function providerConfigFields(
  api: string,
  providerType: string,
  version = SCHEMA_VERSIONS[0],
): string[] | undefined {
  const s = schemaFor(version)?.providers[api]?.[providerType];
  return s ? Object.keys(s.properties ?? {}) : undefined;
}

/**
 * The first place where `config` (config.yaml, parsed) differs from what Llama Stack `version` accepts, as
 * `path: what is wrong`; undefined when it is accepted, or when there is no schema for that version.
 */
export function serverConfigError(config: unknown, version = SCHEMA_VERSIONS[0]): string | undefined {
  const schema = schemaFor(version);
  if (!schema) return undefined;
  return (
    new Checker(schema.config).check(schema.config, config, '') ??
    checkApis(schema, config as Record<string, unknown>, version) ??
    checkProviders(schema, (config as Record<string, unknown>).providers, version)
  );
}

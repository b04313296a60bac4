// OpenAPI v3: the index and one document per group-version. kubectl reads them to check that the server
// supports `fieldValidation` (cli-runtime's query-param verifier looks for a PATCH operation tagged with
// the kind's x-kubernetes-group-version-kind and a `fieldValidation` query parameter), and for explain.
// Strategic merge patch is deliberately not advertised: kubectl then computes client-side-apply patches
// for built-ins from its compiled-in types, which carry the real merge keys. Built-in kinds publish their
// full field schemas (../builtin/openapi-schemas.ts) for explain; that does not change what kubectl
// patches with, since it only reads schemas for patching when the PATCH operation offers strategic merge.
import { createHash } from 'node:crypto';
import { builtinOpenApiSchemas } from '../builtin/openapi-schemas.ts';
import type { Registry } from '../resource-types/resource-registry.ts';
import { ALL_VERBS, groupVersion, type ResourceType } from '../resource-types/resource-type.ts';
import type { JSONSchemaProps } from '../schema/types.ts';

export const KUBE_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' };

interface Doc {
  body: string;
  hash: string;
  /** set for group-versions served only by built-in kinds: their document depends on nothing else */
  builtinKinds?: string;
}

export class OpenApiCache {
  private generation = -1;
  private docs = new Map<string, Doc>();

  constructor(private readonly registry: Registry) {}

  private rebuild(): void {
    if (this.generation === this.registry.generation) return;
    this.generation = this.registry.generation;
    const previous = this.docs;
    this.docs = new Map();
    for (const [group, versions] of this.registry.groups()) {
      for (const version of versions) {
        const key = group ? `apis/${group}/${version}` : `api/${version}`;
        // the built-in documents are large and never change: a CRD change does not rebuild them
        const rts = this.registry
          .all()
          .filter((rt) => rt.group === group && rt.versions.some((v) => v.name === version && v.served));
        const builtinKinds = rts.every((rt) => rt.builtin) ? rts.map((rt) => rt.kind).join(',') : undefined;
        const old = previous.get(key);
        if (builtinKinds !== undefined && old?.builtinKinds === builtinKinds) {
          this.docs.set(key, old);
          continue;
        }
        const body = JSON.stringify(groupVersionDoc(this.registry, group, version));
        this.docs.set(key, {
          body,
          hash: createHash('sha512').update(body).digest('hex').toUpperCase(),
          ...(builtinKinds !== undefined ? { builtinKinds } : {}),
        });
      }
    }
  }

  index(): Record<string, unknown> {
    this.rebuild();
    const paths: Record<string, unknown> = {};
    for (const [key, doc] of this.docs) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
    return { paths };
  }

  doc(key: string): Doc | undefined {
    this.rebuild();
    return this.docs.get(key);
  }
}

const queryParams = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

function param(name: string): Record<string, unknown> {
  const schema = name === 'force' ? { type: 'boolean' } : { type: 'string' };
  return { name, in: 'query', description: name, schema, ...(name === 'force' ? {} : { uniqueItems: true }) };
}

function schemaName(rt: ResourceType, version: string): string {
  const group = rt.group || 'core';
  return rt.builtin
    ? `io.k8s.api.${group.split('.')[0]}.${version}.${rt.kind}`
    : `${rt.group.split('.').reverse().join('.')}.${version}.${rt.kind}`;
}

function groupVersionDoc(registry: Registry, group: string, version: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const served = registry
    .all()
    .filter((rt) => rt.group === group && rt.versions.some((v) => v.name === version && v.served));
  const builtin = builtinOpenApiSchemas(
    group,
    version,
    served.filter((rt) => rt.builtin).map((rt) => rt.kind),
  );
  Object.assign(schemas, builtin.schemas);
  for (const rt of served) {
    const rv = rt.versions.find((v) => v.name === version && v.served)!;
    const gvk = { group, version, kind: rt.kind };
    let name = builtin.roots.get(rt.kind);
    if (!rt.builtin || name === undefined) {
      name = schemaName(rt, version);
      schemas[name] = {
        ...publishedSchema(rv.schema),
        'x-kubernetes-group-version-kind': [gvk],
      };
    }
    Object.assign(paths, resourcePaths(rt, prefix, gvk, name));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];

/**
 * the item, list and status paths of one resource, every operation pointing at its schema, with only the
 * operations the resource serves: kube publishes a create-only kind (the reviews) as a single POST, so
 * kubectl's fieldValidation check finds no PATCH for it (see the header)
 */
function resourcePaths(
  rt: ResourceType,
  prefix: string,
  gvk: { group: string; version: string; kind: string },
  schema: string,
): Record<string, unknown> {
  const ref = { $ref: `#/components/schemas/${schema}` };
  const content = (types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: ref }]));
  const itemPath = rt.namespaced
    ? `${prefix}/namespaces/{namespace}/${rt.plural}/{name}`
    : `${prefix}/${rt.plural}/{name}`;
  const listPath = rt.namespaced ? `${prefix}/namespaces/{namespace}/${rt.plural}` : `${prefix}/${rt.plural}`;
  const op = (action: string, extra: Record<string, unknown> = {}) => ({
    operationId: `${action}${rt.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    responses: { '200': { description: 'OK', content: content(['application/json', 'application/yaml']) } },
    ...extra,
  });
  const write = (action: string) =>
    op(action, {
      parameters: queryParams.filter((p) => p !== 'force').map(param),
      requestBody: { content: content(['*/*']) },
    });
  const patch = () =>
    op('patch', { parameters: queryParams.map(param), requestBody: { content: content(PATCH_TYPES) } });
  const serves = (verb: string) => (rt.verbs ?? ALL_VERBS).includes(verb);
  const only = (ops: Array<[verb: string, method: string, make: () => unknown]>) =>
    Object.fromEntries(ops.filter(([verb]) => serves(verb)).map(([, method, make]) => [method, make()]));
  const paths: Record<string, Record<string, unknown>> = {
    [itemPath]: only([
      ['get', 'get', () => op('get')],
      ['update', 'put', () => write('put')],
      ['patch', 'patch', patch],
      ['delete', 'delete', () => op('delete')],
    ]),
    [listPath]: only([
      ['list', 'get', () => op('list')],
      ['create', 'post', () => write('post')],
    ]),
  };
  if (rt.subresources.status) paths[`${itemPath}/status`] = { get: op('get'), patch: patch() };
  return Object.fromEntries(Object.entries(paths).filter(([, ops]) => Object.keys(ops).length > 0));
}

/** A CRD version's schema as published, or an open object for built-ins (the server validates them). */
function publishedSchema(schema: JSONSchemaProps | undefined): Record<string, unknown> {
  if (!schema) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const out = { ...(schema as Record<string, unknown>) };
  const props = { ...((out.properties as Record<string, unknown>) ?? {}) };
  props.apiVersion ??= { type: 'string' };
  props.kind ??= { type: 'string' };
  props.metadata = { type: 'object' };
  out.properties = props;
  return out;
}

export { groupVersion };

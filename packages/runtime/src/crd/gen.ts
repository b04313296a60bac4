// zod → CustomResourceDefinition. Each API group describes spec and status with zod (which also gives it the
// TypeScript types and runtime parsing); this builds the CRD object around them with a structural schema.

import type {
  CustomResourceConversion,
  CustomResourceDefinition,
  CustomResourceSubresources,
} from '@modelplane/apimachinery/builtin';
import { z } from 'zod';
import { type JsonSchema, toStructural } from './structural.ts';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface CrdVersionSpec {
  name: string;
  /** defaults to true for the first version */
  storage?: boolean;
  served?: boolean;
  /** absent only for kinds whose fields all sit at the root (see rootFields) */
  spec?: z.ZodType;
  status?: z.ZodType;
  /** whether `spec` must be present (default true when there is a spec) */
  specRequired?: boolean;
  /** fields at the object's root beside spec and status (some external kinds keep their spec there) */
  rootFields?: Record<string, z.ZodType>;
  printerColumns?: PrinterColumn[];
  /** defaults to the status subresource when a status schema is given */
  subresources?: CustomResourceSubresources;
}

export interface CrdSpec {
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersionSpec[];
  /** spec.conversion (e.g. a conversion webhook stanza from src/webhooks); default: none */
  conversion?: CustomResourceConversion;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** One zod schema as a structural OpenAPI v3 schema (input shape, so optional-with-default fields stay optional). */
export function structuralSchema(schema: z.ZodType): JsonSchema {
  return toStructural(
    z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw' }) as JsonSchema,
  );
}

export function crdFromZod(spec: CrdSpec): CustomResourceDefinition {
  const singular = spec.singular ?? spec.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${spec.plural}.${spec.group}`,
      ...(spec.labels ? { labels: spec.labels } : {}),
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    },
    spec: {
      group: spec.group,
      names: {
        kind: spec.kind,
        listKind: `${spec.kind}List`,
        plural: spec.plural,
        singular,
        ...(spec.shortNames?.length ? { shortNames: spec.shortNames } : {}),
        ...(spec.categories?.length ? { categories: spec.categories } : {}),
      },
      scope: spec.scope,
      versions: spec.versions.map((v, i) => {
        const properties: Record<string, JsonSchema> = {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
        };
        if (v.spec) properties.spec = withContext(structuralSchema(v.spec), `${spec.kind}.spec`);
        for (const [name, field] of Object.entries(v.rootFields ?? {})) properties[name] = structuralSchema(field);
        if (v.status) properties.status = structuralSchema(v.status);
        const subresources = v.subresources ?? (v.status ? { status: {} } : undefined);
        const specRequired = v.spec !== undefined && (v.specRequired ?? true);
        return {
          name: v.name,
          served: v.served ?? true,
          storage: v.storage ?? i === 0,
          schema: { openAPIV3Schema: { type: 'object', properties, ...(specRequired ? { required: ['spec'] } : {}) } },
          ...(subresources ? { subresources } : {}),
          ...(v.printerColumns?.length ? { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) } : {}),
        };
      }),
      ...(spec.conversion ? { conversion: spec.conversion } : {}),
    },
  };
}

function withContext(schema: JsonSchema, what: string): JsonSchema {
  if (schema.type !== 'object') throw new Error(`${what}: must be an object schema, got ${String(schema.type)}`);
  return schema;
}

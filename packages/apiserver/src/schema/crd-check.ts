// CustomResourceDefinition validation as kube-apiserver performs it on create and update
// (apiextensions validation.go). kube validates its *internal* form, in which fields identical across
// all versions (schema, subresources, printer columns) are hoisted to spec.validation, spec.subresources
// and spec.additionalPrinterColumns, and conversion.webhook.* becomes conversion.webhookClientConfig /
// conversion.conversionReviewVersions: causes use those paths because that is what kubectl shows.
import type { StatusCause } from '../errors.ts';
import { jsonEqual } from './compiled-schema.ts';
import { checkConversion, checkPrinterColumn, checkSubresources } from './crd-parts-check.ts';
import { checkVersionSchema } from './crd-schema-check.ts';
import { crdShapeErrors } from './crd-shape.ts';
import { fieldError, fieldPath, RenderedValue } from './field-errors.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors } from './object-meta.ts';
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from './types.ts';

const { index } = fieldPath;

/** Applies the apiextensions.k8s.io/v1 defaults kube sets before validating (singular, listKind, conversion, service port). */
export function defaultCrd(crdObject: CrdLike): void {
  const spec = (crdObject as CustomResourceDefinition).spec;
  if (!spec) return;
  if (spec.names?.kind) {
    if (!spec.names.singular) spec.names.singular = spec.names.kind.toLowerCase();
    if (!spec.names.listKind) spec.names.listKind = `${spec.names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && service.port === undefined) service.port = 443;
}

/** The internal-version view: which per-version fields kube hoists because every version has the same value. */
interface Hoisted {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function hoisting(versions: CustomResourceDefinitionVersion[]): Hoisted {
  const first = versions[0];
  const same = (pick: (v: CustomResourceDefinitionVersion) => unknown) =>
    versions.every((v) => jsonEqual(pick(v) ?? null, pick(first!) ?? null));
  return {
    schema: same((v) => v.schema),
    subresources: same((v) => v.subresources),
    columns: same((v) => (v.additionalPrinterColumns?.length ? v.additionalPrinterColumns : null)),
  };
}

function namesErrors(spec: CustomResourceDefinitionSpec, out: StatusCause[]): void {
  const names = spec.names ?? ({} as CustomResourceDefinitionSpec['names']);
  for (const f of ['plural', 'singular', 'kind', 'listKind'] as const)
    if (!names[f]) out.push(fieldError.required(`spec.names.${f}`, ''));
  const label = (f: 'plural' | 'singular', v: string | undefined) => {
    const errs = v ? dns1035LabelErrors(v) : [];
    if (errs.length) out.push(fieldError.invalid(`spec.names.${f}`, v, errs.join(',')));
  };
  label('plural', names.plural);
  label('singular', names.singular);
  for (const f of ['kind', 'listKind'] as const) {
    const v = names[f];
    const errs = v ? dns1035LabelErrors(v.toLowerCase()) : [];
    if (errs.length)
      out.push(
        fieldError.invalid(`spec.names.${f}`, v, `may have mixed case, but should otherwise match: ${errs.join(',')}`),
      );
  }
  (names.shortNames ?? []).forEach((s, i) => {
    const errs = dns1035LabelErrors(s);
    if (errs.length) out.push(fieldError.invalid(index('spec.names.shortNames', i), s, errs.join(',')));
  });
  if (names.kind && names.kind === names.listKind)
    out.push(fieldError.invalid('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    const errs = dns1035LabelErrors(c);
    if (errs.length) out.push(fieldError.invalid(index('spec.names.categories', i), c, errs.join(',')));
  });
}

function schemaHas(s: JSONSchemaProps | undefined, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (!s) return false;
  if (pred(s)) return true;
  const kids: (JSONSchemaProps | undefined)[] = [
    ...(Array.isArray(s.items) ? s.items : [s.items]),
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    s.not,
    ...Object.values(s.properties ?? {}),
    typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined,
  ];
  return kids.some((k) => schemaHas(k, pred));
}

function specErrors(spec: CustomResourceDefinitionSpec, out: StatusCause[]): void {
  groupAndScopeErrors(spec, out);
  const versions = spec.versions ?? [];
  const hoisted = versions.length ? hoisting(versions) : { schema: false, subresources: false, columns: false };
  const topSchema = hoisted.schema ? versions[0]?.schema : undefined;
  const topSubresources = hoisted.subresources ? versions[0]?.subresources : undefined;
  if (!topSchema?.openAPIV3Schema) {
    versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema) out.push(fieldError.required(`spec.versions[${i}].schema.openAPIV3Schema`, ''));
    });
  }
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  if (
    spec.preserveUnknownFields &&
    schemas.some((s) => schemaHas(s, (x) => x.default !== undefined && x.default !== null))
  ) {
    out.push(
      fieldError.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'),
    );
  }

  versionErrors(versions, hoisted, topSubresources, out);
  const anyStatus = versions.some((v) => v.subresources?.status !== undefined);
  namesErrors(spec, out);
  if (topSchema?.openAPIV3Schema)
    out.push(...checkVersionSchema(topSchema.openAPIV3Schema, 'spec.validation', anyStatus));
  if (hoisted.subresources) out.push(...checkSubresources(topSubresources, 'spec.subresources'));
  if (hoisted.columns)
    (versions[0]?.additionalPrinterColumns ?? []).forEach((c, j) => {
      out.push(...checkPrinterColumn(c, `spec.additionalPrinterColumns[${j}]`));
    });

  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    out.push(
      fieldError.invalid(
        'spec.conversion.strategy',
        spec.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  out.push(...checkConversion(spec.conversion));
  if (spec.preserveUnknownFields) {
    out.push(
      fieldError.invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
}

function groupAndScopeErrors(spec: CustomResourceDefinitionSpec, out: StatusCause[]): void {
  if (!spec.group) out.push(fieldError.required('spec.group', ''));
  else if (dns1123SubdomainErrors(spec.group).length)
    out.push(fieldError.invalid('spec.group', spec.group, dns1123SubdomainErrors(spec.group).join(',')));
  else if (spec.group.split('.').length < 2)
    out.push(fieldError.invalid('spec.group', spec.group, 'should be a domain with at least one dot'));

  if (!spec.scope) out.push(fieldError.required('spec.scope', ''));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    out.push(fieldError.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
}

/** each version's own fields (those not hoisted to the top), then the list's rules: unique names, one storage */
function versionErrors(
  versions: CustomResourceDefinitionVersion[],
  hoisted: Hoisted,
  topSubresources: CustomResourceDefinitionVersion['subresources'],
  out: StatusCause[],
): void {
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vPath = `spec.versions[${i}]`;
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = dns1035LabelErrors(v.name ?? '');
    if (nameErrs.length) out.push(fieldError.invalid(`${vPath}.name`, v.name ?? '', nameErrs.join(',')));
    if (!v.deprecated && v.deprecationWarning !== undefined)
      out.push(
        fieldError.invalid(
          `${vPath}.deprecationWarning`,
          v.deprecationWarning,
          'can only be set for deprecated versions',
        ),
      );
    else if (v.deprecationWarning !== undefined && v.deprecationWarning.length > 256)
      out.push(
        fieldError.invalid(`${vPath}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long'),
      );
    const statusEnabled = (hoisted.subresources ? topSubresources : v.subresources)?.status !== undefined;
    if (!hoisted.schema && v.schema?.openAPIV3Schema)
      out.push(...checkVersionSchema(v.schema.openAPIV3Schema, `${vPath}.schema`, statusEnabled));
    if (!hoisted.subresources) out.push(...checkSubresources(v.subresources, `${vPath}.subresources`));
    if (!hoisted.columns)
      (v.additionalPrinterColumns ?? []).forEach((c, j) => {
        out.push(...checkPrinterColumn(c, `${vPath}.additionalPrinterColumns[${j}]`));
      });
  });
  // kube prints the typed version list with %#v (pointers included); JSON is the readable equivalent
  const shownVersions = new RenderedValue(JSON.stringify(versions));
  if (!unique) out.push(fieldError.invalid('spec.versions', shownVersions, 'must contain unique version names'));
  if (storage !== 1)
    out.push(
      fieldError.invalid('spec.versions', shownVersions, 'must have exactly one version marked as storage version'),
    );
  // the internal spec.version is versions[0].name, so kube checks that name a second time
  const first = versions[0]?.name;
  if (first && dns1035LabelErrors(first).length)
    out.push(fieldError.invalid('spec.version', first, dns1035LabelErrors(first).join(',')));
}

function isEstablished(crd: CustomResourceDefinition): boolean {
  const conditions = (crd.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** A decoded CRD object as the API server holds it (spec not yet typed). */
export interface CrdLike {
  metadata?: { name?: string; generateName?: string };
  spec?: unknown;
  status?: unknown;
}

/**
 * Validates a (defaulted) CRD; a CRD with JSON type errors gets only those. With `oldCrd` it is an update: group and plural are immutable, and once
 * the old CRD is Established so are scope and kind.
 */
export function checkCrd(crdObject: CrdLike, oldObject?: CrdLike): StatusCause[] {
  const shape = crdShapeErrors(crdObject);
  if (shape.length > 0) return shape;
  const crd = crdObject as CustomResourceDefinition;
  const oldCrd = oldObject as CustomResourceDefinition | undefined;
  const out: StatusCause[] = [];
  const spec = crd.spec ?? ({} as CustomResourceDefinitionSpec);
  const name = crd.metadata?.name ?? '';
  if (!name && !crd.metadata?.generateName)
    out.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else if (name) {
    const errs = dns1123SubdomainErrors(name);
    if (name !== `${spec.names?.plural}.${spec.group}`) errs.push('must be spec.names.plural+"."+spec.group');
    for (const e of errs) out.push(fieldError.invalid('metadata.name', name, e));
  }
  specErrors(spec, out);
  if (oldCrd) {
    const immutable = (path: string, now: unknown, before: unknown) => {
      if (!jsonEqual(now ?? null, before ?? null)) out.push(fieldError.invalid(path, now ?? '', 'field is immutable'));
    };
    if (isEstablished(oldCrd)) {
      immutable('spec.scope', spec.scope, oldCrd.spec?.scope);
      immutable('spec.names.kind', spec.names?.kind, oldCrd.spec?.names?.kind);
    }
    immutable('spec.group', spec.group, oldCrd.spec?.group);
    immutable('spec.names.plural', spec.names?.plural, oldCrd.spec?.names?.plural);
  }
  return out;
}

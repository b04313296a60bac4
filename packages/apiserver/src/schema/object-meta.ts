// `metadata` of a custom resource (and of embedded resources) is not governed by the CRD schema: kube
// decodes it into metav1.ObjectMeta, which drops every field ObjectMeta does not have. Embedded
// resources must also carry apiVersion and kind (apiextensions-apiserver schema/objectmeta).
import type { StatusCause } from '../errors.ts';
import { fieldError, fieldPath } from './field-errors.ts';

export const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Removes fields ObjectMeta does not know; returns their paths (e.g. `metadata.foo`) for unknown-field warnings. */
export function pruneObjectMeta(meta: Record<string, unknown>, path: string, pruned: string[]): void {
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      pruned.push(`${path}.${k}`);
      delete meta[k];
    }
  }
}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** validation.IsDNS1035Label: every problem, in kube's order. */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035.test(value)) errs.push(DNS1035_MSG);
  return errs;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(DNS1123_SUBDOMAIN_MSG);
  return errs;
}

/** schema.ParseGroupVersion's error for an apiVersion with more than one slash. */
function groupVersionError(apiVersion: string): string | undefined {
  if (apiVersion.split('/').length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
  return undefined;
}

/** apiVersion and kind of an x-kubernetes-embedded-resource object (validateEmbeddedResource). */
export function embeddedResourceErrors(obj: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const apiPath = fieldPath.child(path, 'apiVersion');
  const kindPath = fieldPath.child(path, 'kind');
  if (!Object.hasOwn(obj, 'apiVersion')) out.push(fieldError.required(apiPath, 'must not be empty'));
  if (!Object.hasOwn(obj, 'kind')) out.push(fieldError.required(kindPath, 'must not be empty'));
  if (Object.hasOwn(obj, 'apiVersion')) {
    const v = obj.apiVersion;
    if (typeof v !== 'string') out.push(fieldError.invalid(apiPath, v, 'must be a string'));
    else if (v === '') out.push(fieldError.invalid(apiPath, v, 'must not be empty'));
    else {
      const gvErr = groupVersionError(v);
      if (gvErr) out.push(fieldError.invalid(apiPath, v, gvErr));
    }
  }
  if (Object.hasOwn(obj, 'kind')) {
    const v = obj.kind;
    if (typeof v !== 'string') out.push(fieldError.invalid(kindPath, v, 'must be a string'));
    else if (v === '') out.push(fieldError.invalid(kindPath, v, 'must not be empty'));
    else {
      const errs = dns1035LabelErrors(v.toLowerCase());
      if (errs.length)
        out.push(fieldError.invalid(kindPath, v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
    }
  }
  return out;
}

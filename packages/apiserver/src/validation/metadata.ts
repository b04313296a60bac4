// ObjectMeta validation as k8s.io/apimachinery/pkg/api/validation does it (ValidateObjectMetaAccessor and
// ValidateObjectMetaAccessorUpdate): same checks, same order, same field paths and messages. Note that kube
// reports owner-reference and finalizer problems on the list path itself (`metadata.ownerReferences.kind`,
// `metadata.finalizers`), without an index; that is kept.
import type { StatusCause } from '../errors.ts';
import { fieldErrors, GoRendered, goQuote, goStringSlice } from './field-errors.ts';
import {
  byteLength,
  isQualifiedName,
  isValidLabelValue,
  type NameValidator,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateNamespaceName,
  validatePathSegmentName,
} from './names.ts';

export {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validateNamespaceName,
  validatePathSegmentName,
} from './names.ts';

export type NameValidation = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'path-segment';

export interface ObjectMetaValidationOptions {
  namespaced: boolean;
  /** the kind's name rule; most kinds use dns1123Subdomain, Namespace dns1123Label, Service dns1035Label, RBAC path-segment */
  nameValidation: NameValidation | NameValidator;
}

export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

const nameValidators: Record<NameValidation, NameValidator> = {
  dns1123Subdomain: nameIsDNSSubdomain,
  dns1123Label: nameIsDNSLabel,
  dns1035Label: nameIsDNS1035Label,
  'path-segment': validatePathSegmentName,
};

type Meta = Record<string, unknown>;

function asMeta(meta: unknown): Meta {
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Meta) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function plainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Validates metadata of an object being created. Expects a generated name to be filled in already. */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaValidationOptions, path = 'metadata'): StatusCause[] {
  const m = asMeta(meta);
  const nameFn = typeof opts.nameValidation === 'function' ? opts.nameValidation : nameValidators[opts.nameValidation];
  const errs: StatusCause[] = [];
  const generateName = str(m.generateName);
  if (generateName) {
    for (const msg of nameFn(generateName, true))
      errs.push(fieldErrors.invalid(`${path}.generateName`, generateName, msg));
  }
  const name = str(m.name);
  if (!name) {
    errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
  }
  errs.push(...validateMetaCommon(m, opts.namespaced, path));
  return errs;
}

function validateMetaCommon(m: Meta, namespaced: boolean, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const namespace = str(m.namespace);
  if (namespaced) {
    if (!namespace) errs.push(fieldErrors.required(`${path}.namespace`));
    else
      for (const msg of validateNamespaceName(namespace, false))
        errs.push(fieldErrors.invalid(`${path}.namespace`, namespace, msg));
  } else if (namespace) {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (typeof m.generation === 'number' && m.generation < 0) {
    errs.push(fieldErrors.invalid(`${path}.generation`, m.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(m.labels, `${path}.labels`));
  errs.push(...validateAnnotations(m.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(m.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(m.managedFields, `${path}.managedFields`));
  return errs;
}

/** Checks a string map's shape; kube would reject a non-map at decode time, we report it as a type error. */
function stringMap(v: unknown, path: string, what: string, errs: StatusCause[]): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!plainObject(v)) {
    errs.push(
      fieldErrors.typeInvalid(
        path,
        new GoRendered(JSON.stringify(v)),
        `${what} must be a map of string keys to string values`,
      ),
    );
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string')
      errs.push(
        fieldErrors.typeInvalid(`${path}[${k}]`, new GoRendered(JSON.stringify(val)), `${what} values must be strings`),
      );
    else out[k] = val;
  }
  return out;
}

export function validateLabelName(key: string, path: string): StatusCause[] {
  return isQualifiedName(key).map((msg) => fieldErrors.invalid(path, key, msg));
}

export function validateLabels(labels: unknown, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const map = stringMap(labels, path, 'labels', errs);
  for (const [k, v] of Object.entries(map ?? {})) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const map = stringMap(annotations, path, 'annotations', errs);
  if (!map) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(map)) {
    // the key rule is a qualified name, except that case does not matter
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES)
    errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** schema.FromAPIVersionAndKind: an unparseable apiVersion yields an empty group and version. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/** gogo-protobuf's generated OwnerReference.String(), which is what kube prints for a banned owner. */
function ownerRefString(r: Meta): string {
  const ptr = (v: unknown) => (typeof v === 'boolean' ? `*${v}` : 'nil');
  return `&OwnerReference{Kind:${str(r.kind)},Name:${str(r.name)},UID:${str(r.uid)},APIVersion:${str(r.apiVersion)},Controller:${ptr(r.controller)},BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)},}`;
}

/** Go's %#v of []metav1.OwnerReference; pointer addresses are replaced by the pointed-to value. */
function ownerRefsGoSyntax(refs: Meta[]): string {
  const ptr = (v: unknown) => `(*bool)(${typeof v === 'boolean' ? v : 'nil'})`;
  const one = (r: Meta) =>
    `v1.OwnerReference{APIVersion:${goQuote(str(r.apiVersion))}, Kind:${goQuote(str(r.kind))}, Name:${goQuote(str(r.name))}, UID:${goQuote(str(r.uid))}, Controller:${ptr(r.controller)}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
  return `[]v1.OwnerReference{${refs.map(one).join(', ')}}`;
}

export function validateOwnerReferences(refs: unknown, path: string): StatusCause[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs))
    return [fieldErrors.typeInvalid(path, new GoRendered(JSON.stringify(refs)), 'ownerReferences must be a list')];
  const errs: StatusCause[] = [];
  let firstController = '';
  const list = refs.map(asMeta);
  for (const ref of list) {
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    const gv = parseGroupVersion(apiVersion);
    if (!gv.version) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!kind) errs.push(fieldErrors.invalid(`${path}.kind`, kind, 'must not be empty'));
    if (!str(ref.name)) errs.push(fieldErrors.invalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (!str(ref.uid)) errs.push(fieldErrors.invalid(`${path}.uid`, str(ref.uid), 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(
        fieldErrors.invalid(
          path,
          new GoRendered(ownerRefString(ref)),
          `/v1, Kind=Event is disallowed from being an owner`,
        ),
      );
    }
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(
            path,
            new GoRendered(ownerRefsGoSyntax(list)),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export function validateFinalizers(finalizers: unknown, path: string): StatusCause[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers))
    return [
      fieldErrors.typeInvalid(path, new GoRendered(JSON.stringify(finalizers)), 'finalizers must be a list of strings'),
    ];
  const errs: StatusCause[] = [];
  const names = finalizers.map((f) => (typeof f === 'string' ? f : String(f)));
  for (const f of names) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    errs.push(
      fieldErrors.invalid(path, goStringSlice(names), 'finalizer orphan and foregroundDeletion cannot be both set'),
    );
  }
  return errs;
}

/** Go's %#U for a rune: `U+0007`, plus the quoted character when it is printable. */
function goRuneU(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return isPrintable(cp) ? `${hex} '${String.fromCodePoint(cp)}'` : hex;
}

function isPrintable(cp: number): boolean {
  return !(cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp < 0xe000));
}

export function validateManagedFields(entries: unknown, path: string): StatusCause[] {
  if (!Array.isArray(entries)) return [];
  const errs: StatusCause[] = [];
  entries.forEach((raw, i) => {
    const e = asMeta(raw);
    const p = `${path}[${i}]`;
    const op = str(e.operation);
    if (op !== 'Apply' && op !== 'Update')
      errs.push(fieldErrors.invalid(`${p}.operation`, op, 'must be `Apply` or `Update`'));
    const fieldsType = str(e.fieldsType);
    if (fieldsType && fieldsType !== 'FieldsV1')
      errs.push(fieldErrors.invalid(`${p}.fieldsType`, fieldsType, 'must be `FieldsV1`'));
    const manager = str(e.manager);
    if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH)
      errs.push(fieldErrors.tooLong(`${p}.manager`, FIELD_MANAGER_MAX_LENGTH));
    let bytePos = 0;
    for (const ch of manager) {
      const cp = ch.codePointAt(0)!;
      if (!isPrintable(cp))
        errs.push(
          fieldErrors.invalid(`${p}.manager`, manager, `invalid character ${goRuneU(cp)} (at position ${bytePos})`),
        );
      bytePos += byteLength(ch);
    }
    if (byteLength(str(e.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH)
      errs.push(fieldErrors.tooLong(`${p}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}

/** Go's time.Time.String() for a UTC RFC 3339 timestamp (how kube prints an immutable timestamp's new value). */
function goTimeString(ts: string): string {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return goQuote(ts);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000 UTC`;
}

function immutable(
  errs: StatusCause[],
  path: string,
  newVal: unknown,
  oldVal: unknown,
  render: (v: unknown) => unknown,
): void {
  if ((newVal ?? null) !== (oldVal ?? null)) errs.push(fieldErrors.invalid(path, render(newVal), 'field is immutable'));
}

/**
 * Validates metadata on update. The caller fills in resourceVersion first when the request may omit it
 * (unconditional PUT, patches), as kube's registry does.
 */
export function validateObjectMetaUpdate(newMeta: unknown, oldMeta: unknown, path = 'metadata'): StatusCause[] {
  const n = asMeta(newMeta);
  const o = asMeta(oldMeta);
  const errs: StatusCause[] = [];
  if (o.deletionTimestamp) {
    const oldFinalizers = new Set(Array.isArray(o.finalizers) ? o.finalizers.map(String) : []);
    const extra = [...new Set(Array.isArray(n.finalizers) ? n.finalizers.map(String) : [])]
      .filter((f) => !oldFinalizers.has(f))
      .sort();
    if (extra.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra).text}`,
        ),
      );
    }
  }
  if (!str(n.resourceVersion))
    errs.push(fieldErrors.invalid(`${path}.resourceVersion`, '', 'must be specified for an update'));
  const newGen = typeof n.generation === 'number' ? n.generation : 0;
  const oldGen = typeof o.generation === 'number' ? o.generation : 0;
  if (newGen < oldGen) errs.push(fieldErrors.invalid(`${path}.generation`, newGen, 'must not be decremented'));
  const asString = (v: unknown) => str(v);
  const asTime = (v: unknown) =>
    new GoRendered(
      typeof v === 'string' && v
        ? goTimeString(v)
        : v === undefined || v === null
          ? 'null'
          : '0001-01-01 00:00:00 +0000 UTC',
    );
  immutable(errs, `${path}.name`, str(n.name), str(o.name), asString);
  immutable(errs, `${path}.namespace`, str(n.namespace), str(o.namespace), asString);
  immutable(errs, `${path}.uid`, str(n.uid), str(o.uid), asString);
  immutable(
    errs,
    `${path}.creationTimestamp`,
    n.creationTimestamp,
    o.creationTimestamp,
    (v) => new GoRendered(goTimeString(str(v) || '0001-01-01T00:00:00Z')),
  );
  immutable(errs, `${path}.deletionTimestamp`, n.deletionTimestamp, o.deletionTimestamp, asTime);
  immutable(
    errs,
    `${path}.deletionGracePeriodSeconds`,
    n.deletionGracePeriodSeconds,
    o.deletionGracePeriodSeconds,
    (v) => (typeof v === 'number' ? v : null),
  );
  errs.push(...validateLabels(n.labels, `${path}.labels`));
  errs.push(...validateAnnotations(n.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(n.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(n.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(n.managedFields, `${path}.managedFields`));
  return errs;
}

/** metav1 validation.ValidateLabelSelector, for spec.selector-style fields. */
export function validateLabelSelector(selector: unknown, path: string): StatusCause[] {
  if (selector === undefined || selector === null) return [];
  const sel = asMeta(selector);
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((raw, i) => {
    const expr = asMeta(raw);
    const p = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(expr.values) ? expr.values : [];
    const op = str(expr.operator);
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0)
        errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(
          fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
    } else {
      errs.push(fieldErrors.invalid(`${p}.operator`, op, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(str(expr.key), `${p}.key`));
  });
  return errs;
}

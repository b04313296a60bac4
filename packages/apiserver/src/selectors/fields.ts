// Field selectors as k8s.io/apimachinery/pkg/fields parses them (comma-separated `field=value`,
// `field==value`, `field!=value`; `\,` `\=` `\\` escapes in values), plus the per-kind allow-lists that
// kube-apiserver's field label conversion functions enforce, and the values each kind exposes for matching
// (kube derives some of them, e.g. Pod `status.podIP` is the first of status.podIPs).

/** A field selector kube would reject; `message` is kube's error text (served as a 400 BadRequest). */
export class FieldSelectorError extends Error {}

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

const TERM_OPERATORS: readonly FieldOperator[] = ['!=', '==', '='];

/** fields.EscapeValue */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.UnescapeValue. Go prints the offending rune with %v, i.e. as its code point number. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=')
        throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=')
      throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not backslash-escaped; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence splits the term; `!=` and `==` win over `=` at the same position. */
function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  /** `get` returns the object's value for a field label, '' when absent (kube's fields.Set.Get). */
  matches(get: (field: string) => string): boolean {
    return this.requirements.every((r) => (r.operator === '!=' ? get(r.field) !== r.value : get(r.field) === r.value));
  }

  /** Matches against an object using fieldValue() for each field label. */
  matchesObject(obj: unknown): boolean {
    return this.matches((f) => fieldValue(obj, f));
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements
      .map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`)
      .join(',');
  }

  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator !== '!=')?.value;
  }
}

/** fields.ParseSelector. Terms are sorted as raw strings first, exactly like kube (this decides which error wins). */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    reqs.push({ field: t.lhs, operator: t.op, value: unescapeFieldValue(t.rhs) });
  }
  return new FieldSelector(reqs);
}

// ---- supported field labels --------------------------------------------------------------------------

const META = ['metadata.name', 'metadata.namespace'];

/** Field labels accepted per built-in kind (kube's AddFieldLabelConversionFunc registrations), keyed `group/Kind`. */
const BUILTIN_FIELDS: Record<string, readonly string[]> = {
  '/Pod': [
    ...META,
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  // cluster-scoped kinds with their own conversion functions do not accept metadata.namespace
  '/Node': ['metadata.name', 'spec.unschedulable'],
  '/Namespace': ['metadata.name', 'status.phase'],
  '/ReplicationController': [...META, 'status.replicas'],
  '/Event': [
    ...META,
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/Secret': [...META, 'type'],
  '/Service': [...META, 'spec.clusterIP', 'spec.type'],
  'batch/Job': [...META, 'status.successful'],
  'apps/ReplicaSet': [...META, 'status.replicas'],
  'certificates.k8s.io/CertificateSigningRequest': ['metadata.name', 'spec.signerName'],
};

/** events.k8s.io Events use their own names, mapped onto core Event field labels. */
const EVENTS_V1_FIELDS: Record<string, string> = {
  'metadata.name': 'metadata.name',
  'metadata.namespace': 'metadata.namespace',
  reason: 'reason',
  type: 'type',
  reportingController: 'reportingComponent',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
};

export interface FieldSelectorTarget {
  group: string;
  kind: string;
  /** custom resources: set, with the CRD's scope and the selectable fields' jsonPaths (`.spec.color`) */
  customResource?: { namespaced: boolean; selectableFields?: readonly string[] };
}

/** A CRD selectableFields jsonPath (`.spec.color`) as a field label (`spec.color`). */
export function selectableFieldLabel(jsonPath: string): string {
  return jsonPath.startsWith('.') ? jsonPath.slice(1) : jsonPath;
}

/**
 * Converts one field label the way kube's registered conversion function does: returns the label to match
 * on, or throws with kube's message for an unsupported label.
 */
export function convertFieldLabel(target: FieldSelectorTarget, label: string): string {
  const unsupported = () => new FieldSelectorError(`field label not supported: ${label}`);
  const cr = target.customResource;
  if (cr) {
    if (label === 'metadata.name' || (cr.namespaced && label === 'metadata.namespace')) return label;
    if ((cr.selectableFields ?? []).some((p) => selectableFieldLabel(p) === label)) return label;
    throw unsupported();
  }
  if (target.group === 'events.k8s.io' && target.kind === 'Event') {
    const mapped = EVENTS_V1_FIELDS[label];
    if (!mapped) throw unsupported();
    return mapped;
  }
  if (target.group === '' && target.kind === 'Pod' && label === 'spec.host') return 'spec.nodeName';
  const allowed = BUILTIN_FIELDS[`${target.group}/${target.kind}`];
  if (allowed) {
    if (!allowed.includes(label)) throw unsupported();
    return label;
  }
  if (META.includes(label)) return label;
  throw new FieldSelectorError(`"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
}

/** The field labels a kind accepts (for docs, errors and tests). */
export function supportedFieldLabels(target: FieldSelectorTarget): string[] {
  const cr = target.customResource;
  if (cr)
    return [...(cr.namespaced ? META : ['metadata.name']), ...(cr.selectableFields ?? []).map(selectableFieldLabel)];
  if (target.group === 'events.k8s.io' && target.kind === 'Event') return Object.keys(EVENTS_V1_FIELDS);
  return [...(BUILTIN_FIELDS[`${target.group}/${target.kind}`] ?? META)];
}

/** Validates and converts every label of a parsed selector for a kind (kube's Transform step). */
export function convertFieldSelector(selector: FieldSelector, target: FieldSelectorTarget): FieldSelector {
  return new FieldSelector(selector.requirements.map((r) => ({ ...r, field: convertFieldLabel(target, r.field) })));
}

// ---- field values ------------------------------------------------------------------------------------

function at(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return '';
}

const boolField = (path: string[]) => (o: unknown) => (at(o, path) === true ? 'true' : 'false');
const intField = (path: string[]) => (o: unknown) => {
  const v = at(o, path);
  return typeof v === 'number' ? String(Math.trunc(v)) : '0';
};
const firstOf =
  (...paths: string[][]) =>
  (o: unknown) => {
    for (const p of paths) {
      const v = at(o, p);
      if (v !== undefined && v !== null) return scalar(v);
    }
    return '';
  };

/** Values kube computes rather than reads verbatim (its ToSelectableFields functions), by kind then label. */
const DERIVED: Record<string, Record<string, (obj: unknown) => string>> = {
  Pod: {
    'spec.hostNetwork': boolField(['spec', 'hostNetwork']),
    'status.podIP': (o) => {
      const ips = at(o, ['status', 'podIPs']);
      if (Array.isArray(ips) && ips.length > 0) return scalar(at(ips[0], ['ip']));
      return scalar(at(o, ['status', 'podIP']));
    },
  },
  Node: { 'spec.unschedulable': boolField(['spec', 'unschedulable']) },
  Job: { 'status.successful': intField(['status', 'succeeded']) },
  ReplicaSet: { 'status.replicas': intField(['status', 'replicas']) },
  ReplicationController: { 'status.replicas': intField(['status', 'replicas']) },
  Event: {
    // core/v1 Events read source.component; events.k8s.io/v1 objects carry the same data under other names
    source: firstOf(['source', 'component'], ['deprecatedSource', 'component']),
    reportingComponent: firstOf(['reportingComponent'], ['reportingController']),
    ...Object.fromEntries(
      ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((f) => [
        `involvedObject.${f}`,
        firstOf(['involvedObject', f], ['regarding', f]),
      ]),
    ),
  },
};

/**
 * The value an object exposes for a field label, as a string ('' when absent; booleans as true/false,
 * integers in decimal). Works for built-in kinds (using `obj.kind`) and for custom resources' selectable
 * fields (plain dotted paths).
 */
export function fieldValue(obj: unknown, field: string): string {
  const kind = scalar(at(obj, ['kind']));
  const derive = DERIVED[kind]?.[field];
  if (derive) return derive(obj);
  return scalar(at(obj, field.split('.')));
}

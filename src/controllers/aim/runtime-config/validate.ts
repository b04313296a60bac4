// Static validation of an AIMRuntimeConfig / AIMClusterRuntimeConfig spec, pure. It catches what the CRD
// schema cannot: path-template syntax (JSONPath injection, keys kubectl would resolve to nothing), label
// patterns, env names, and values the children built from the config would be rejected for (an HTTPRoute's
// request timeout, parentRef names, annotation keys). Every problem names its field; the same config is
// shared by many workloads, so a broken one must be visible here before any of them uses it.
import { validateEnvVars } from '../../../common/env-merge/index.ts';
import { validateLabelPatterns } from '../../../common/label-propagation/index.ts';
import { encodeSegment, MAX_ROUTE_PATH_LENGTH, validatePathTemplate } from '../../../common/path-template/index.ts';
import type { RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';

export interface SpecProblem {
  /** the field, e.g. `spec.routing.pathTemplate` or `spec.env[0].name` */
  field: string;
  /** a condition reason (CamelCase) */
  reason: string;
  /** starts with the field, then the cause */
  message: string;
}

export interface RuntimeConfigReport {
  /** make the config invalid (ConfigValid=False) */
  errors: SpecProblem[];
  /** valid but worth telling the owner (deprecated spellings) */
  warnings: SpecProblem[];
}

export const REASON = {
  PathTemplateInvalid: 'PathTemplateInvalid',
  InvalidLabelPattern: 'InvalidLabelPattern',
  InvalidEnvVar: 'InvalidEnvVar',
  InvalidRequestTimeout: 'InvalidRequestTimeout',
  InvalidGatewayRef: 'InvalidGatewayRef',
  InvalidAnnotation: 'InvalidAnnotation',
  InvalidObjectName: 'InvalidObjectName',
  DeprecatedField: 'DeprecatedField',
  DeprecatedFieldIgnored: 'DeprecatedFieldIgnored',
} as const;

/** the namespace-only auth fields of AIMRuntimeConfig (the cluster kind has none) */
export interface NamespaceAuthFields {
  imagePullSecrets?: { name?: string }[];
  serviceAccountName?: string;
}

export function validateRuntimeConfigSpec(
  spec: (RuntimeConfigSpec & NamespaceAuthFields) | undefined,
): RuntimeConfigReport {
  const errors: SpecProblem[] = [];
  const s = spec ?? {};
  const routing = s.routing;
  if (typeof routing?.pathTemplate === 'string' && routing.pathTemplate !== '') {
    const syntax = validatePathTemplate(routing.pathTemplate, 'spec.routing.pathTemplate');
    for (const e of syntax) errors.push(problem(e.field, REASON.PathTemplateInvalid, e.message));
    const length = syntax.length === 0 ? literalPathLength(routing.pathTemplate) : 0;
    if (length > MAX_ROUTE_PATH_LENGTH) {
      const cause = `its literal text alone renders ${length} characters after encoding, more than the maximum of ${MAX_ROUTE_PATH_LENGTH}, so every service's path would be rejected`;
      errors.push(problem('spec.routing.pathTemplate', REASON.PathTemplateInvalid, cause));
    }
  }
  if (routing?.requestTimeout !== undefined) {
    const message = gatewayDurationProblem(routing.requestTimeout);
    if (message) errors.push(problem('spec.routing.requestTimeout', REASON.InvalidRequestTimeout, message));
  }
  if (routing?.gatewayRef) errors.push(...gatewayRefProblems(routing.gatewayRef));
  for (const [key, value] of Object.entries(routing?.annotations ?? {})) {
    const message = qualifiedNameProblem(key) ?? (typeof value === 'string' ? undefined : 'value must be a string');
    if (message)
      errors.push(problem(`spec.routing.annotations[${JSON.stringify(key)}]`, REASON.InvalidAnnotation, message));
  }
  for (const e of validateLabelPatterns(s.labelPropagation?.match, 'spec.labelPropagation.match')) {
    errors.push(problem(e.field, REASON.InvalidLabelPattern, `pattern ${JSON.stringify(e.pattern)}: ${e.message}`));
  }
  for (const e of validateEnvVars(s.env, 'spec.env')) errors.push(problem(e.field, REASON.InvalidEnvVar, e.message));
  // pods referring to these by an impossible name would be refused, so say it here
  (s.imagePullSecrets ?? []).forEach((ref, i) => {
    if (!isObjectName(ref?.name))
      errors.push(
        problem(
          `spec.imagePullSecrets[${i}].name`,
          REASON.InvalidObjectName,
          `${JSON.stringify(ref?.name ?? '')} is not a valid Secret name`,
        ),
      );
  });
  if (s.serviceAccountName !== undefined && s.serviceAccountName !== '' && !isObjectName(s.serviceAccountName)) {
    errors.push(
      problem(
        'spec.serviceAccountName',
        REASON.InvalidObjectName,
        `${JSON.stringify(s.serviceAccountName)} is not a valid ServiceAccount name`,
      ),
    );
  }
  return { errors, warnings: deprecationWarnings(s) };
}

/**
 * The shortest path the template can render: placeholders as empty strings (rendered values are never
 * shorter, and encoding never shortens), normalised as src/common/path-template does.
 */
function literalPathLength(template: string): number {
  const segments = template
    .replace(/\{[^{}]*\}/g, '')
    .split('/')
    .filter((s) => s !== '');
  return `/${segments.map((s) => encodeSegment(s.normalize('NFC').toLowerCase())).join('/')}`.length;
}

function problem(field: string, reason: string, cause: string): SpecProblem {
  return { field, reason, message: `${field}: ${cause}` };
}

// GEP-2257, the Duration of Gateway API: what an HTTPRoute's timeouts.request accepts. Stricter than the
// Go durations the CRD lets through (no fractions, no µs/ns, at most 4 parts of up to 5 digits).
const GATEWAY_DURATION = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;

/** why `value` is not a Gateway API duration, or undefined when it is one */
export function gatewayDurationProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string such as "30s"';
  if (GATEWAY_DURATION.test(value)) return undefined;
  return (
    `${JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)} is not a Gateway API duration: ` +
    `1 to 4 parts of up to 5 digits, each with unit h, m, s or ms (e.g. "30s", "1m30s", "500ms"); ` +
    `the HTTPRoute's timeouts.request would be rejected`
  );
}

// Gateway API ObjectName (a DNS-1123 subdomain) and Namespace (a DNS-1123 label), as the HTTPRoute CRD checks parentRefs.
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SECTION_NAME = DNS1123_SUBDOMAIN;
const GROUP = /^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;

function gatewayRefProblems(ref: {
  name?: unknown;
  namespace?: unknown;
  group?: unknown;
  kind?: unknown;
  sectionName?: unknown;
}): SpecProblem[] {
  const out: SpecProblem[] = [];
  const check = (field: string, value: unknown, re: RegExp, max: number, what: string) => {
    if (value === undefined) return;
    if (typeof value !== 'string' || value.length > max || !re.test(value)) {
      out.push(
        problem(
          `spec.routing.gatewayRef.${field}`,
          REASON.InvalidGatewayRef,
          `${JSON.stringify(value)} is not ${what}`,
        ),
      );
    }
  };
  check(
    'name',
    ref.name,
    DNS1123_SUBDOMAIN,
    253,
    'a valid object name (lowercase letters, digits, "-" and ".", at most 253 characters)',
  );
  check(
    'namespace',
    ref.namespace,
    DNS1123_LABEL,
    63,
    'a valid namespace name (lowercase letters, digits and "-", at most 63 characters)',
  );
  check('sectionName', ref.sectionName, SECTION_NAME, 253, 'a valid listener name');
  check('group', ref.group, GROUP, 253, 'a valid API group');
  check('kind', ref.kind, KIND, 63, 'a valid kind');
  return out;
}

function isObjectName(name: unknown): boolean {
  return typeof name === 'string' && name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** metadata key syntax (annotation keys on the HTTPRoute); undefined when valid */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const [prefix, name] = slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
  if (prefix !== undefined && (prefix === '' || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `key prefix ${JSON.stringify(prefix)} must be a lowercase DNS subdomain (at most 253 characters)`;
  }
  if (name === '' || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `key name ${JSON.stringify(name)} must be at most 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  }
  return undefined;
}

/**
 * The deprecated top-level spellings next to `storage.*`. The merge uses the top-level value only when the
 * `storage.*` field is unset (src/common/runtime-config migrateDeprecatedFields), so with both set
 * `storage.*` wins.
 */
function deprecationWarnings(spec: RuntimeConfigSpec): SpecProblem[] {
  const out: SpecProblem[] = [];
  for (const field of ['defaultStorageClassName', 'pvcHeadroomPercent'] as const) {
    const old = spec[field];
    if (old === undefined || old === null) continue;
    const current = spec.storage?.[field];
    const from = `spec.${field}`;
    const to = `spec.storage.${field}`;
    if (current === undefined || current === null) {
      out.push(
        problem(
          from,
          REASON.DeprecatedField,
          `deprecated; its value ${JSON.stringify(old)} is used as ${to}, move it there`,
        ),
      );
    } else if (current === old) {
      out.push(
        problem(from, REASON.DeprecatedField, `deprecated and repeats ${to} (${JSON.stringify(current)}); remove it`),
      );
    } else {
      out.push(
        problem(
          from,
          REASON.DeprecatedFieldIgnored,
          `deprecated and ignored: ${to} (${JSON.stringify(current)}) wins over ${JSON.stringify(old)}`,
        ),
      );
    }
  }
  return out;
}

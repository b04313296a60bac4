// The ModelDeployment form's checks before submitting: the CRD schema (the zod schema the CRD is generated
// from), then exactly what the admission webhooks would do — defaulting, then the validation tables with
// their own messages — with the providers and served APIs the dashboard sees. Pure.
import {
  type InferenceProviderConfig,
  KAR_API_VERSION,
  MODEL_DEPLOYMENT_KIND,
  type ModelDeployment,
  modelDeploymentSpecSchema,
} from '../../apis/kubeairunway/index.ts';
import { providerApiServed } from '../../controllers/kubeairunway/served-apis.ts';
import { defaultModelDeployment, validateModelDeployment } from '../../controllers/kubeairunway/validation/index.ts';
import type { ValidationResponse } from './types.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface FormContext {
  /** the only namespace the dashboard was started for (`-n`), if any */
  namespace?: string;
  providers?: readonly InferenceProviderConfig[];
  /** `group/version` of every served API, to tell whether a named provider's CRD is installed */
  served?: ReadonlySet<string>;
}

function metadataErrors(md: Partial<ModelDeployment>): ValidationResponse['errors'] {
  const errors: ValidationResponse['errors'] = [];
  const name = md.metadata?.name;
  if (!name) errors.push({ field: 'metadata.name', message: 'metadata.name: Required value: name is required' });
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    errors.push({
      field: 'metadata.name',
      message: `metadata.name: Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  if (!md.metadata?.namespace)
    errors.push({
      field: 'metadata.namespace',
      message: 'metadata.namespace: Required value: choose the namespace to create it in',
    });
  return errors;
}

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'spec']);
const METADATA = new Set(['name', 'namespace', 'labels', 'annotations']);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * What the body names that the form does not write: another kind or API version, a field beside metadata
 * and spec (a Role's rules, a binding's subjects, a status), metadata beyond name/namespace/labels/annotations,
 * a namespace outside the dashboard's. The dashboard creates ModelDeployments and nothing else.
 */
function shapeErrors(input: Record<string, unknown>, ctx: FormContext): ValidationResponse['errors'] {
  const errors: ValidationResponse['errors'] = [];
  const creates = `this dashboard creates only ${MODEL_DEPLOYMENT_KIND} (${KAR_API_VERSION})`;
  if (input.kind !== undefined && input.kind !== MODEL_DEPLOYMENT_KIND)
    errors.push({ field: 'kind', message: `kind: Unsupported value: ${JSON.stringify(input.kind)}: ${creates}` });
  if (input.apiVersion !== undefined && input.apiVersion !== KAR_API_VERSION)
    errors.push({
      field: 'apiVersion',
      message: `apiVersion: Unsupported value: ${JSON.stringify(input.apiVersion)}: ${creates}`,
    });
  for (const key of Object.keys(input).filter((k) => !TOP_LEVEL.has(k)))
    errors.push({ field: key, message: `unknown field ${JSON.stringify(key)}: ${creates}, from metadata and spec` });
  const meta = input.metadata;
  if (meta !== undefined && !isObject(meta))
    errors.push({ field: 'metadata', message: 'metadata: Invalid value: must be an object' });
  if (isObject(meta)) errors.push(...metadataShapeErrors(meta, ctx));
  return errors;
}

function metadataShapeErrors(meta: Record<string, unknown>, ctx: FormContext): ValidationResponse['errors'] {
  const errors: ValidationResponse['errors'] = [];
  for (const key of Object.keys(meta).filter((k) => !METADATA.has(k)))
    errors.push({
      field: `metadata.${key}`,
      message: `unknown field "metadata.${key}": the form sets only name, namespace, labels and annotations`,
    });
  for (const key of ['labels', 'annotations'] as const)
    if (
      meta[key] !== undefined &&
      !(isObject(meta[key]) && Object.values(meta[key]).every((v) => typeof v === 'string'))
    )
      errors.push({ field: `metadata.${key}`, message: `metadata.${key}: Invalid value: must map strings to strings` });
  if (meta.name !== undefined && typeof meta.name !== 'string')
    errors.push({ field: 'metadata.name', message: 'metadata.name: Invalid value: must be a string' });
  const ns = meta.namespace;
  if (ns !== undefined && typeof ns !== 'string')
    errors.push({ field: 'metadata.namespace', message: 'metadata.namespace: Invalid value: must be a string' });
  else if (ns && (ns.length > 63 || !DNS_LABEL.test(ns)))
    errors.push({
      field: 'metadata.namespace',
      message: `metadata.namespace: Invalid value: ${JSON.stringify(ns.slice(0, 100))}: a lowercase RFC 1123 label of at most 63 characters`,
    });
  else if (ctx.namespace && ns && ns !== ctx.namespace)
    errors.push({
      field: 'metadata.namespace',
      message: `metadata.namespace: Forbidden: this dashboard serves namespace ${ctx.namespace} only`,
    });
  return errors;
}

/** the object the dashboard creates: the kind, version and fields are its own; only the form's values come from the body */
export function formObject(input: unknown): ModelDeployment {
  const body = isObject(input) ? input : {};
  const meta = isObject(body.metadata) ? body.metadata : {};
  return {
    apiVersion: KAR_API_VERSION,
    kind: MODEL_DEPLOYMENT_KIND,
    metadata: {
      name: String(meta.name ?? ''),
      namespace: String(meta.namespace ?? ''),
      ...(isObject(meta.labels) ? { labels: meta.labels as Record<string, string> } : {}),
      ...(isObject(meta.annotations) ? { annotations: meta.annotations as Record<string, string> } : {}),
    },
    spec: (isObject(body.spec) ? body.spec : {}) as ModelDeployment['spec'],
  } as ModelDeployment;
}

export function validateForm(input: unknown, ctx: FormContext = {}): ValidationResponse {
  if (!isObject(input))
    return { errors: [{ field: '', message: 'the request body must be a ModelDeployment object' }], warnings: [] };
  const shape = shapeErrors(input, ctx);
  if (shape.length > 0) return { errors: shape, warnings: [] };
  const md = formObject(input);
  if (input.spec !== undefined && !isObject(input.spec))
    return { errors: [{ field: 'spec', message: 'spec: Invalid value: must be an object' }], warnings: [] };
  const errors = metadataErrors(md);
  const parsed = modelDeploymentSpecSchema.safeParse(md.spec ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = ['spec', ...issue.path.map(String)].join('.');
      errors.push({ field, message: `${field}: ${issue.message}` });
    }
    return { errors, warnings: [] };
  }
  const defaulted = defaultModelDeployment({
    ...md,
    metadata: { ...md.metadata },
    spec: structuredClone(md.spec ?? parsed.data),
  });
  const providers = ctx.providers;
  const served = ctx.served;
  const result = validateModelDeployment(defaulted, undefined, {
    ...(providers ? { providers } : {}),
    ...(providers && served
      ? { providerCrdInstalled: (name: string) => providerApiServed(providers, served, name) }
      : {}),
  });
  return { errors: [...errors, ...result.errors], warnings: result.warnings, defaulted };
}

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

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface FormContext {
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

export function validateForm(input: unknown, ctx: FormContext = {}): ValidationResponse {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { errors: [{ field: '', message: 'the request body must be a ModelDeployment object' }], warnings: [] };
  const md = {
    ...(input as Partial<ModelDeployment>),
    apiVersion: KAR_API_VERSION,
    kind: MODEL_DEPLOYMENT_KIND,
  } as ModelDeployment;
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

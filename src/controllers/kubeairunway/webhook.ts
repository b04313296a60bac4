// The ModelDeployment admission webhooks (docs/kubeairunway.md, "Webhooks"): defaulting, then the validation tables
// with docs/kubeairunway.md's exact messages. Both run the pure functions the core controller also runs at reconcile
// time, so a request the webhook never saw (it was down, or not installed yet) is held at `phase: Pending`
// with the same message instead of slipping through.
//
// failurePolicy is Ignore, deliberately unlike upstream's Fail: docs/kubeairunway.md says that while the webhook is
// unavailable "the controller will accept the resource" and validate it at reconcile time, and providers
// default and check compatibility and overrides themselves, so nothing unsafe gets through an outage.

import type { Cache } from '@modelplane/runtime/cache';
import { type CustomResourceDefinition, CustomResourceDefinitions } from '@modelplane/runtime/client';
import {
  type InferenceProviderConfig,
  InferenceProviderConfigs,
  KAR_GROUP,
  KAR_VERSION,
  MODEL_DEPLOYMENT_PLURAL,
  type ModelDeployment,
  ModelDeployments,
} from '../../apis/kubeairunway/index.ts';
import type { RuleWithOperations, WebhookRegistry } from '../../webhooks/index.ts';
import { nameClaimWarning } from './gateway/ownership.ts';
import { routedModelName } from './gateway/route.ts';
import { providerApiServed, servedGroupVersions } from './served-apis.ts';
import { defaultModelDeployment, validateModelDeployment } from './validation/index.ts';

export const MODEL_DEPLOYMENT_MUTATING_PATH = '/mutate-kubeairunway-ai-v1alpha1-modeldeployment';
export const MODEL_DEPLOYMENT_VALIDATING_PATH = '/validate-kubeairunway-ai-v1alpha1-modeldeployment';
export const MODEL_DEPLOYMENT_VALIDATING_WEBHOOK = 'vmodeldeployment.kubeairunway.ai';
export const MODEL_DEPLOYMENT_MUTATING_WEBHOOK = 'mmodeldeployment.kubeairunway.ai';
const MODEL_NAME_INDEX = 'kubeairunway.ai/webhook-model-name';

const rules = (): RuleWithOperations[] => [
  {
    operations: ['CREATE', 'UPDATE'],
    apiGroups: [KAR_GROUP],
    apiVersions: [KAR_VERSION],
    resources: [MODEL_DEPLOYMENT_PLURAL],
  },
];

/**
 * Registers both webhooks. `cache` supplies the InferenceProviderConfigs and CRDs for the provider checks;
 * until it has synced those checks are skipped (the core repeats them) rather than refusing valid objects.
 */
export async function registerModelDeploymentWebhooks(hooks: WebhookRegistry, cache: Cache): Promise<void> {
  const providers = await cache.informer(InferenceProviderConfigs);
  const crds = await cache.informer(CustomResourceDefinitions);
  await cache.indexField(ModelDeployments, MODEL_NAME_INDEX, (o) => [routedModelName(o as ModelDeployment)]);
  const deployments = await cache.informer(ModelDeployments);
  hooks.mutating<ModelDeployment>(
    MODEL_DEPLOYMENT_MUTATING_PATH,
    { name: MODEL_DEPLOYMENT_MUTATING_WEBHOOK, rules: rules(), failurePolicy: 'Ignore' },
    (req) => (req.object ? defaultModelDeployment(req.object) : undefined),
  );
  hooks.validating<ModelDeployment>(
    MODEL_DEPLOYMENT_VALIDATING_PATH,
    { name: MODEL_DEPLOYMENT_VALIDATING_WEBHOOK, rules: rules(), failurePolicy: 'Ignore' },
    (req) => {
      if (!req.object) return undefined;
      const synced = providers.hasSynced && crds.hasSynced;
      const known = synced ? (providers.store.list() as InferenceProviderConfig[]) : undefined;
      const served = synced ? servedGroupVersions(crds.store.list() as CustomResourceDefinition[]) : undefined;
      const result = validateModelDeployment(req.object, req.oldObject ?? undefined, {
        ...(known ? { providers: known } : {}),
        ...(known && served ? { providerCrdInstalled: (name: string) => providerApiServed(known, served, name) } : {}),
      });
      if (result.errors.length > 0 || !deployments.hasSynced) return result;
      const modelName = routedModelName(req.object);
      const claim = nameClaimWarning(
        req.object,
        deployments.store.byIndex(MODEL_NAME_INDEX, modelName) as ModelDeployment[],
        modelName,
      );
      return claim ? { ...result, warnings: [...result.warnings, claim] } : result;
    },
  );
}

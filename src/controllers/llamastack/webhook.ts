// The LlamaStackDistribution webhooks: the conversion between v1alpha1 and v1alpha2, and the defaulting
// step that turns a provider section written as one object into a list before the schema and its CEL
// rules see it (docs/llamastack.md, "One object or a list").

import { ConfigMaps, CustomResourceDefinitions, type KubeClient, Secrets } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  convertLlamaStackDistribution,
  LLAMASTACK_CONVERSION_PATH,
  LLS_CRD_NAME,
  LLS_GROUP,
  LLS_PLURAL,
  LLS_V1ALPHA2,
  type LlamaStackDistribution,
  normalizeV1Alpha2Spec,
} from '../../apis/llamastack/index.ts';
import type { RuleWithOperations, WebhookRegistry } from '../../webhooks/index.ts';
import { parseImageOverrides } from './config/index.ts';
import { IMAGE_OVERRIDES_KEY, OPERATOR_CONFIGMAP } from './names.ts';
import { validateLlamaStack } from './validate.ts';

export const LLAMASTACK_MUTATING_PATH = '/mutate-llamastack-io-v1alpha2-llamastackdistribution';
export const LLAMASTACK_MUTATING_WEBHOOK = 'mllamastackdistribution.llamastack.io';
export const LLAMASTACK_VALIDATING_PATH = '/validate-llamastack-io-v1alpha2-llamastackdistribution';
export const LLAMASTACK_VALIDATING_WEBHOOK = 'vllamastackdistribution.llamastack.io';

const rules = (): RuleWithOperations[] => [
  { operations: ['CREATE', 'UPDATE'], apiGroups: [LLS_GROUP], apiVersions: [LLS_V1ALPHA2], resources: [LLS_PLURAL] },
];

export function registerLlamaStackConversion(hooks: WebhookRegistry): void {
  hooks.conversion(
    LLAMASTACK_CONVERSION_PATH,
    { crds: [LLS_CRD_NAME] },
    (obj, desired) => convertLlamaStackDistribution(obj, desired) as KubeObject,
  );
}

/**
 * Points the CRD's conversion webhook at this installation's webhook Service: the shipped CRD names the
 * default namespace, and a chart installed elsewhere would otherwise send conversions nowhere. A missing
 * CRD (LlamaStackDistribution not installed) is not an error: there is nothing to convert. Returns whether
 * it wrote.
 */
export async function pointLlamaStackConversion(
  client: KubeClient,
  service: { name: string; namespace: string },
): Promise<boolean> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: LLS_CRD_NAME },
  };
  const live = await client.getOrUndefined(CustomResourceDefinitions, LLS_CRD_NAME);
  const current = (live?.spec as { conversion?: { webhook?: { clientConfig?: { url?: string } } } } | undefined)
    ?.conversion?.webhook?.clientConfig;
  // a URL was chosen on purpose (a development setup): leave it
  if (!live || current?.url) return false;
  const clientConfig = {
    service: { name: service.name, namespace: service.namespace, path: LLAMASTACK_CONVERSION_PATH },
  };
  await client.apply(
    {
      ...crd,
      spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } } },
    } as KubeObject,
    { force: true },
  );
  return true;
}

export function registerLlamaStackDefaulting(hooks: WebhookRegistry): void {
  // Ignore: while the webhook is down, list-form objects still apply, and a single-object section is
  // refused by the schema itself with a message naming the field ("must be of type array")
  hooks.mutating<LlamaStackDistribution>(
    LLAMASTACK_MUTATING_PATH,
    { name: LLAMASTACK_MUTATING_WEBHOOK, rules: rules(), failurePolicy: 'Ignore' },
    (req) => (req.object ? { ...req.object, spec: normalizeV1Alpha2Spec(req.object.spec) } : undefined),
  );
}

/**
 * Existence checks read live with `get` (one object each, nothing cached or logged): a Secret or ConfigMap
 * created a moment before the LlamaStackDistribution is seen. Ignore, like the defaulting webhook: the
 * controller repeats every check at reconcile time and reports it in status.
 */
export function registerLlamaStackValidation(
  hooks: WebhookRegistry,
  client: KubeClient,
  operatorNamespace: string,
): void {
  hooks.validating<LlamaStackDistribution>(
    LLAMASTACK_VALIDATING_PATH,
    { name: LLAMASTACK_VALIDATING_WEBHOOK, rules: rules(), failurePolicy: 'Ignore' },
    async (req) => {
      if (!req.object) return undefined;
      const operatorConfig = await client.getOrUndefined(ConfigMaps, OPERATOR_CONFIGMAP, operatorNamespace);
      return validateLlamaStack(req.object, {
        secretKeys: async (ns, name) => {
          const s = await client.getOrUndefined(Secrets, name, ns);
          return s ? Object.keys({ ...(s.data ?? {}), ...(s.stringData ?? {}) }) : undefined;
        },
        configMapExists: async (ns, name) => (await client.getOrUndefined(ConfigMaps, name, ns)) !== undefined,
        configMap: (ns, name) => client.getOrUndefined(ConfigMaps, name, ns),
        overrideNames: Object.keys(parseImageOverrides(operatorConfig?.data?.[IMAGE_OVERRIDES_KEY]).images),
      });
    },
  );
}

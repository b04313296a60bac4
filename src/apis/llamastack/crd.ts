// The LlamaStackDistribution CRD: v1alpha1 and v1alpha2 served, v1alpha2 stored, converted by a webhook.

import type { CustomResourceConversion, CustomResourceDefinition } from '@modelplane/apimachinery/builtin';
import { crdFromZod } from '@modelplane/runtime/crd';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  LLS_API_VERSION_V1ALPHA1,
  LLS_API_VERSION_V1ALPHA2,
  LLS_CATEGORIES,
  LLS_GROUP,
  LLS_KIND,
  LLS_PLURAL,
  LLS_V1ALPHA1,
  LLS_V1ALPHA2,
} from './common.ts';
import {
  type LlamaStackDistributionV1Alpha1Spec,
  type LlamaStackDistributionV1Alpha1Status,
  v1alpha1SpecSchema,
  v1alpha1StatusSchema,
} from './v1alpha1.ts';
import {
  type LlamaStackDistributionSpec,
  type LlamaStackDistributionStatus,
  v1alpha2SpecSchema,
  v1alpha2StatusSchema,
} from './v1alpha2.ts';

/** the path the conversion webhook is served at */
export const LLAMASTACK_CONVERSION_PATH = '/convert-llamastack-io-llamastackdistribution';

export interface LlamaStackDistribution extends KubeObject {
  spec: LlamaStackDistributionSpec;
  status?: LlamaStackDistributionStatus;
}
export interface LlamaStackDistributionV1Alpha1 extends KubeObject {
  spec: LlamaStackDistributionV1Alpha1Spec;
  status?: LlamaStackDistributionV1Alpha1Status;
}

export const LlamaStackDistributions = kindRef<LlamaStackDistribution>(LLS_API_VERSION_V1ALPHA2, LLS_KIND);
export const LlamaStackDistributionsV1Alpha1 = kindRef<LlamaStackDistributionV1Alpha1>(
  LLS_API_VERSION_V1ALPHA1,
  LLS_KIND,
);

const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;
const phase = { name: 'Phase', type: 'string', jsonPath: '.status.phase' } as const;
const available = { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' } as const;

/** `conversion` is the CRD's spec.conversion (a webhook stanza); without it kube cannot convert between the versions */
export function llamaStackCrd(conversion?: CustomResourceConversion): CustomResourceDefinition {
  return crdFromZod({
    group: LLS_GROUP,
    kind: LLS_KIND,
    plural: LLS_PLURAL,
    shortNames: ['llsd'],
    categories: LLS_CATEGORIES,
    scope: 'Namespaced',
    ...(conversion ? { conversion } : {}),
    versions: [
      {
        name: LLS_V1ALPHA1,
        storage: false,
        spec: v1alpha1SpecSchema,
        status: v1alpha1StatusSchema,
        printerColumns: [
          phase,
          { name: 'Operator Version', type: 'string', jsonPath: '.status.version.operatorVersion' },
          { name: 'Server Version', type: 'string', jsonPath: '.status.version.llamaStackServerVersion' },
          available,
          age,
        ],
      },
      {
        name: LLS_V1ALPHA2,
        storage: true,
        spec: v1alpha2SpecSchema,
        status: v1alpha2StatusSchema,
        printerColumns: [
          phase,
          {
            name: 'Distribution',
            type: 'string',
            jsonPath: '.status.distributionConfig.activeDistribution',
            priority: 1,
          },
          { name: 'Config', type: 'string', jsonPath: '.status.configGeneration.configMapName', priority: 1 },
          { name: 'Providers', type: 'integer', jsonPath: '.status.configGeneration.providerCount' },
          available,
          age,
        ],
      },
    ],
  });
}

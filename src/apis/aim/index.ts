// The aim.eai.amd.com/v1alpha1 API: zod schemas (types, parsing) and the CRDs generated from them.
import type { CustomResourceDefinition } from '../../kube/kinds.ts';
import { artifactCrd, templateCacheCrd } from './cache.ts';
import { clusterModelCrd, modelCrd } from './model.ts';
import { clusterModelSourceCrd } from './model-source.ts';
import { clusterRuntimeConfigCrd, runtimeConfigCrd } from './runtime-config.ts';
import { serviceCrd } from './service.ts';
import { clusterTemplateCrd, templateCrd } from './template.ts';

export * from './cache.ts';
export * from './catalog-shared.ts';
export * from './common.ts';
export * from './model.ts';
export * from './model-source.ts';
export * from './runtime-config.ts';
export * from './service.ts';
export * from './template.ts';

/** every CRD of the aim.eai.amd.com group, in install order (configs before their consumers) */
export function aimCrds(): CustomResourceDefinition[] {
  return [
    clusterRuntimeConfigCrd(),
    runtimeConfigCrd(),
    clusterModelSourceCrd(),
    clusterModelCrd(),
    modelCrd(),
    clusterTemplateCrd(),
    templateCrd(),
    templateCacheCrd(),
    artifactCrd(),
    serviceCrd(),
  ];
}

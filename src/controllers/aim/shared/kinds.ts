// Kind references and object types of the AIM API group, for controllers. The shapes come from the zod
// schemas in src/apis/aim, so the CRDs and the controllers cannot drift apart.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type {
  AIMArtifactSpec,
  AIMArtifactStatus,
  AIMClusterModelSourceSpec,
  AIMClusterModelSourceStatus,
  AIMClusterModelSpec,
  AIMClusterServiceTemplateSpec,
  AIMModelSpec,
  AIMModelStatus,
  AIMServiceSpec,
  AIMServiceStatus,
  AIMServiceTemplateSpec,
  AIMServiceTemplateStatus,
  AIMTemplateCacheSpec,
  AIMTemplateCacheStatus,
  ClusterRuntimeConfigSpec,
  NamespaceRuntimeConfigSpec,
  RuntimeConfigStatus,
} from '../../../apis/aim/index.ts';
import { AIM_API_VERSION } from '../../../apis/aim/index.ts';

export interface AIMService extends KubeObject {
  spec: AIMServiceSpec;
  status?: AIMServiceStatus;
}
export interface AIMModel extends KubeObject {
  spec: AIMModelSpec;
  status?: AIMModelStatus;
}
export interface AIMClusterModel extends KubeObject {
  spec: AIMClusterModelSpec;
  status?: AIMModelStatus;
}
export interface AIMRuntimeConfig extends KubeObject {
  spec?: NamespaceRuntimeConfigSpec;
  status?: RuntimeConfigStatus;
}
export interface AIMClusterRuntimeConfig extends KubeObject {
  spec?: ClusterRuntimeConfigSpec;
  status?: RuntimeConfigStatus;
}

export interface AIMServiceTemplate extends KubeObject {
  spec: AIMServiceTemplateSpec;
  status?: AIMServiceTemplateStatus;
}
export interface AIMClusterServiceTemplate extends KubeObject {
  spec: AIMClusterServiceTemplateSpec;
  status?: AIMServiceTemplateStatus;
}
export interface AIMTemplateCache extends KubeObject {
  spec: AIMTemplateCacheSpec;
  status?: AIMTemplateCacheStatus;
}
export interface AIMArtifact extends KubeObject {
  spec: AIMArtifactSpec;
  status?: AIMArtifactStatus;
}
export interface AIMClusterModelSource extends KubeObject {
  /** a source has no runtimeConfigName: it resolves the `default` config (the `never` makes it a consumer) */
  spec: AIMClusterModelSourceSpec & { runtimeConfigName?: never };
  status?: AIMClusterModelSourceStatus;
}
export type AnyModel = AIMModel | AIMClusterModel;
export type AnyTemplate = AIMServiceTemplate | AIMClusterServiceTemplate;

export const AIMServices = kindRef<AIMService>(AIM_API_VERSION, 'AIMService');
export const AIMModels = kindRef<AIMModel>(AIM_API_VERSION, 'AIMModel');
export const AIMClusterModels = kindRef<AIMClusterModel>(AIM_API_VERSION, 'AIMClusterModel');
export const AIMRuntimeConfigs = kindRef<AIMRuntimeConfig>(AIM_API_VERSION, 'AIMRuntimeConfig');
export const AIMClusterRuntimeConfigs = kindRef<AIMClusterRuntimeConfig>(AIM_API_VERSION, 'AIMClusterRuntimeConfig');
export const AIMServiceTemplates = kindRef<AIMServiceTemplate>(AIM_API_VERSION, 'AIMServiceTemplate');
export const AIMClusterServiceTemplates = kindRef<AIMClusterServiceTemplate>(
  AIM_API_VERSION,
  'AIMClusterServiceTemplate',
);
export const AIMTemplateCaches = kindRef<AIMTemplateCache>(AIM_API_VERSION, 'AIMTemplateCache');
export const AIMArtifacts = kindRef<AIMArtifact>(AIM_API_VERSION, 'AIMArtifact');
export const AIMClusterModelSources = kindRef<AIMClusterModelSource>(AIM_API_VERSION, 'AIMClusterModelSource');

/** anything that resolves a runtime config: AIMService, AIMModel, AIMClusterModel (and later templates, caches) */
export interface RuntimeConfigConsumer extends KubeObject {
  spec: { runtimeConfigName?: string };
}

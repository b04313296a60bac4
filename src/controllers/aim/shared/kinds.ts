// Kind references and object types of the AIM API group, for controllers. The shapes come from the zod
// schemas in src/apis/aim, so the CRDs and the controllers cannot drift apart.
import type { AIMModelSpec, AIMClusterModelSpec, AIMModelStatus, AIMServiceSpec, AIMServiceStatus, ClusterRuntimeConfigSpec, NamespaceRuntimeConfigSpec, RuntimeConfigStatus } from '../../../apis/aim/index.ts';
import { AIM_API_VERSION } from '../../../apis/aim/index.ts';
import { kindRef, type KubeObject } from '../../../kube/index.ts';

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

export const AIMServices = kindRef<AIMService>(AIM_API_VERSION, 'AIMService');
export const AIMModels = kindRef<AIMModel>(AIM_API_VERSION, 'AIMModel');
export const AIMClusterModels = kindRef<AIMClusterModel>(AIM_API_VERSION, 'AIMClusterModel');
export const AIMRuntimeConfigs = kindRef<AIMRuntimeConfig>(AIM_API_VERSION, 'AIMRuntimeConfig');
export const AIMClusterRuntimeConfigs = kindRef<AIMClusterRuntimeConfig>(AIM_API_VERSION, 'AIMClusterRuntimeConfig');

/** anything that resolves a runtime config: AIMService, AIMModel, AIMClusterModel (and later templates, caches) */
export interface RuntimeConfigConsumer extends KubeObject {
  spec: { runtimeConfigName?: string };
}

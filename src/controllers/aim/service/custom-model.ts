// `spec.model.custom` (docs/aim.md, "The service's model"): the service creates a namespaced AIMModel from
// the base image, the model sources and the hardware, with no owner reference (it outlives the service, and
// services with the same custom model share it: the name is derived from what defines the model). The
// model controller then makes its template (inline sources: no discovery) and the chain continues as for
// any model. Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMServiceSpec } from '../../../apis/aim/index.ts';
import { ORIGIN_AUTO_GENERATED, ORIGIN_LABEL } from '../../../apis/aim/index.ts';
import { AIMModels, type AIMService } from '../shared/kinds.ts';
import { autoModelName, labelValueFor, MANAGED_BY, MANAGED_BY_LABEL, SERVICE_LABEL } from './names.ts';

export type CustomModelSpec = NonNullable<AIMServiceSpec['model']['custom']>;

export const CUSTOM_MODEL_LABEL = 'aim.eai.amd.com/custom-model';

/** the same base image, sources and hardware give the same model name */
export function customModelName(custom: CustomModelSpec): string {
  const identity = JSON.stringify([custom.baseImage, custom.modelSources, custom.hardware]);
  return autoModelName(`${custom.baseImage.split('@')[0]}-custom@${identity}`);
}

export function buildCustomModel(service: AIMService, custom: CustomModelSpec): KubeObject {
  return {
    apiVersion: AIMModels.apiVersion,
    kind: AIMModels.kind,
    metadata: {
      name: customModelName(custom),
      namespace: service.metadata.namespace ?? '',
      labels: {
        [ORIGIN_LABEL]: ORIGIN_AUTO_GENERATED,
        [CUSTOM_MODEL_LABEL]: 'true',
        [SERVICE_LABEL]: labelValueFor(service.metadata.name ?? ''),
        [MANAGED_BY_LABEL]: MANAGED_BY,
      },
    },
    spec: {
      image: custom.baseImage,
      modelSources: structuredClone(custom.modelSources),
      custom: { hardware: structuredClone(custom.hardware) },
      ...inheritedModelSpec(service),
      ...(service.spec.env?.length ? { env: structuredClone(service.spec.env) } : {}),
    },
  };
}

/** what a model the service creates takes from it: its runtime config and credentials */
export function inheritedModelSpec(service: AIMService): Record<string, unknown> {
  const spec = service.spec;
  return {
    ...(spec.runtimeConfigName ? { runtimeConfigName: spec.runtimeConfigName } : {}),
    ...(spec.imagePullSecrets?.length
      ? { imagePullSecrets: spec.imagePullSecrets.map((s) => ({ name: s.name })) }
      : {}),
    ...(spec.serviceAccountName ? { serviceAccountName: spec.serviceAccountName } : {}),
  };
}

// spec.provider.overrides for KubeRay (docs/kubeairunway.md's "KubeRay overrides", which upstream documents but never
// applies): `head.rayStartParams` merge into the head group's start parameters; `head.resources` resize the
// head container. Containers are a list, which a deep merge replaces whole, so the patch carries the
// complete head container as the transform builds it, with the new size.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { defaultModelDeployment } from '../../validation/index.ts';
import { isPlainObject } from '../common/index.ts';
import { HEAD_RESOURCES, headContainer } from './transform.ts';

const FIELD = 'spec.provider.overrides.head';

export function translateKubeRayOverrides(input: ModelDeployment): Record<string, unknown> {
  const overrides = input.spec.provider?.overrides;
  if (overrides === undefined || overrides === null || overrides.head === undefined) return {};
  const head = overrides.head;
  if (!isPlainObject(head)) throw new Error(`${FIELD}: must be an object`);
  const headGroupSpec: Record<string, unknown> = {};
  if (head.rayStartParams !== undefined) {
    if (!isPlainObject(head.rayStartParams)) throw new Error(`${FIELD}.rayStartParams: must be a map of strings`);
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(head.rayStartParams)) {
      if (typeof value !== 'string') throw new Error(`${FIELD}.rayStartParams.${key}: must be a string`);
      params[key] = value;
    }
    headGroupSpec.rayStartParams = params;
  }
  if (head.resources !== undefined) {
    if (!isPlainObject(head.resources)) throw new Error(`${FIELD}.resources: must be an object`);
    const size: Record<string, string> = { ...HEAD_RESOURCES };
    for (const key of ['cpu', 'memory'] as const) {
      const value = head.resources[key];
      if (value === undefined) continue;
      if (!((typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)))) {
        throw new Error(`${FIELD}.resources.${key}: must be a resource quantity such as "4" or "8Gi"`);
      }
      size[key] = String(value);
    }
    headGroupSpec.template = { spec: { containers: [headContainer(defaultModelDeployment(input), size)] } };
  }
  return Object.keys(headGroupSpec).length > 0 ? { spec: { rayClusterConfig: { headGroupSpec } } } : {};
}

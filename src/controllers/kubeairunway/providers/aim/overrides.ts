// spec.provider.overrides for AIM (PROVIDER_OVERRIDES.aim): the AIMService's own runtime-config fields, so
// the translation is the identity onto spec. routing and storage merge into what the transform built (it
// sets neither); imagePullSecrets is a list and replaces.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { isPlainObject } from '../common/index.ts';

const FIELD = 'spec.provider.overrides';
export const AIM_OVERRIDE_KEYS = ['runtimeConfigName', 'routing', 'storage', 'imagePullSecrets'] as const;

export function translateAimOverrides(md: ModelDeployment): Record<string, unknown> {
  const overrides = md.spec.provider?.overrides;
  if (overrides === undefined || overrides === null) return {};
  const spec: Record<string, unknown> = {};
  if (overrides.runtimeConfigName !== undefined) {
    if (typeof overrides.runtimeConfigName !== 'string')
      throw new Error(`${FIELD}.runtimeConfigName: must be a string`);
    spec.runtimeConfigName = overrides.runtimeConfigName;
  }
  for (const key of ['routing', 'storage'] as const) {
    if (overrides[key] === undefined) continue;
    if (!isPlainObject(overrides[key])) throw new Error(`${FIELD}.${key}: must be an object`);
    spec[key] = structuredClone(overrides[key]);
  }
  if (overrides.imagePullSecrets !== undefined) {
    const list = overrides.imagePullSecrets;
    if (!Array.isArray(list) || !list.every((s) => isPlainObject(s) && typeof s.name === 'string')) {
      throw new Error(`${FIELD}.imagePullSecrets: must be a list of {name: <Secret name>}`);
    }
    spec.imagePullSecrets = list.map((s) => ({ name: (s as { name: string }).name }));
  }
  return Object.keys(spec).length > 0 ? { spec } : {};
}

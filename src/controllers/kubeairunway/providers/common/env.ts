// Container environment built from a ModelDeployment. Secrets are passed on BY REFERENCE only: the token's
// Secret name becomes a secretKeyRef and the controllers never read a Secret (docs/kubeairunway.md: "Secret Handling").
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { type EnvVar, mergeEnvByName } from '../../../../common/env-merge/index.ts';
import { modelCacheEnv } from '../../storage/volumes.ts';

/** the variable the model servers read the Hugging Face token from, and the key it has in the user's Secret */
export const HF_TOKEN_ENV = 'HF_TOKEN';
export const HF_TOKEN_SECRET_KEY = 'HF_TOKEN';

/** the name of the Secret holding the Hugging Face token, when the deployment names one */
export function hfTokenSecretName(md: ModelDeployment): string | undefined {
  return md.spec.secrets?.huggingFaceToken || undefined;
}

/** HF_TOKEN as a secretKeyRef to `secrets.huggingFaceToken`, or nothing */
export function hfTokenEnv(md: ModelDeployment): EnvVar[] {
  const secret = hfTokenSecretName(md);
  return secret
    ? [{ name: HF_TOKEN_ENV, valueFrom: { secretKeyRef: { name: secret, key: HF_TOKEN_SECRET_KEY } } }]
    : [];
}

/**
 * spec.env as container env: literal values and Secret key references only. Any other valueFrom (a
 * ConfigMap, a field or resource reference) is refused with the entry's path rather than dropped, since the
 * upstream operators do not all carry them.
 */
export function userEnv(md: ModelDeployment): EnvVar[] {
  return (md.spec.env ?? []).map((e, i) => {
    const field = `spec.env[${i}]`;
    if (e.valueFrom === undefined) return e.value === undefined ? { name: e.name } : { name: e.name, value: e.value };
    const kinds = Object.keys(e.valueFrom);
    if (kinds.length !== 1 || kinds[0] !== 'secretKeyRef') {
      throw new Error(
        `${field}.valueFrom (${e.name}): only value and valueFrom.secretKeyRef are supported, got ${kinds.join(', ') || 'an empty valueFrom'}`,
      );
    }
    const ref = e.valueFrom.secretKeyRef as { name?: unknown; key?: unknown; optional?: unknown } | null;
    if (typeof ref?.name !== 'string' || ref.name === '' || typeof ref.key !== 'string' || ref.key === '') {
      throw new Error(`${field}.valueFrom.secretKeyRef (${e.name}): name and key must both be set`);
    }
    const secretKeyRef = {
      name: ref.name,
      key: ref.key,
      ...(typeof ref.optional === 'boolean' ? { optional: ref.optional } : {}),
    };
    return { name: e.name, valueFrom: { secretKeyRef } };
  });
}

/**
 * the env of a model container: the token reference, HF_HOME at a model cache volume, then spec.env (a
 * user's own HF_TOKEN or HF_HOME entry wins)
 */
export function modelEnv(md: ModelDeployment): EnvVar[] {
  return mergeEnvByName(hfTokenEnv(md), modelCacheEnv(md), userEnv(md));
}

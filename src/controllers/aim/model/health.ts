// What an AIMModel / AIMClusterModel reports, decided from data (pure). For now a model depends on two
// things: its runtime config (RuntimeConfigReady) and a syntactically valid image reference.
//
// A missing explicit config is a MissingUpstreamDependency (reason ConfigNotFound) like on every other AIM
// kind: the engine rolls it up to Failed with ConfigValid=False (docs/controllers.md: "stop apply, fail resource"), and
// the controllers watch both config kinds so the model recovers the moment the config appears.
import { type FetchResult, invalidSpecError, type MaybeHealth } from '../../../engine/index.ts';
import { parseImageReference } from '../shared/image-reference.ts';
import { type AimRuntimeConfig, runtimeConfigHealth } from '../shared/runtime-config-source.ts';

export const INVALID_IMAGE_REFERENCE = 'InvalidImageReference';

export function modelRuntimeConfigHealth(rc: FetchResult<AimRuntimeConfig> | undefined): MaybeHealth {
  return runtimeConfigHealth(rc);
}

/** reported only when the image is invalid (InvalidSpec: Failed until the spec is fixed) */
export function modelImageHealth(image: unknown): MaybeHealth {
  const parsed = parseImageReference(typeof image === 'string' ? image : '');
  if (parsed.ok) return undefined;
  const message =
    typeof image === 'string'
      ? `spec.image ${JSON.stringify(image.length > 128 ? `${image.slice(0, 128)}…` : image)} is not a valid OCI image reference: ${parsed.message}`
      : 'spec.image is required';
  return { component: 'Image', errors: [invalidSpecError(INVALID_IMAGE_REFERENCE, message)] };
}

export function modelHealth(
  model: { spec?: { image?: unknown } },
  rc: FetchResult<AimRuntimeConfig> | undefined,
): MaybeHealth[] {
  return [modelRuntimeConfigHealth(rc), modelImageHealth(model.spec?.image)];
}

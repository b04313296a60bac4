// What an AIMModel / AIMClusterModel reports, decided from data (pure). For now a model depends on two
// things: its runtime config (RuntimeConfigReady) and a syntactically valid image reference.
//
// A missing explicit config is reported as Degraded with reason ConfigNotFound rather than as a blocking
// MissingUpstreamDependency (which the engine rolls up to Failed): the seed allows either, and for a model
// that creates nothing the condition heals on its own when the config appears (the controllers watch both
// config kinds), so Degraded, "waiting on something outside", is the accurate state. Ready then carries the
// reason ConfigNotFound, as the seed words it.
import { type FetchResult, invalidSpecError, type MaybeHealth } from '../../../engine/index.ts';
import { type AimRuntimeConfig, CONFIG_NOT_FOUND, runtimeConfigHealth } from '../shared/runtime-config-source.ts';
import { parseImageReference } from '../shared/image-reference.ts';

export const INVALID_IMAGE_REFERENCE = 'InvalidImageReference';

export function modelRuntimeConfigHealth(rc: FetchResult<AimRuntimeConfig> | undefined): MaybeHealth {
  if (rc && !rc.ok() && rc.categorized()?.reason === CONFIG_NOT_FOUND) {
    return { component: 'RuntimeConfig', state: 'Degraded', reason: CONFIG_NOT_FOUND, message: rc.categorized()!.message, dependencyType: 'Upstream' };
  }
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

export function modelHealth(model: { spec?: { image?: unknown } }, rc: FetchResult<AimRuntimeConfig> | undefined): MaybeHealth[] {
  return [modelRuntimeConfigHealth(rc), modelImageHealth(model.spec?.image)];
}

// A model's image metadata (docs/aim.md, "Models"): spec.imageMetadata when the user wrote it (no registry
// call, for air-gapped clusters), else what an earlier reconcile stored in status.imageMetadata, else the
// image's labels read from the registry once. Registry failures are categorised: a missing image is a
// missing upstream (fix the spec), bad credentials are Auth, anything else is retried.

import { type ImageRegistry, RegistryError } from '@modelplane/runtime/registry';
import type { AIMImageMetadata } from '../../../apis/aim/index.ts';
import {
  authError,
  FetchResult,
  infrastructureError,
  invalidSpecError,
  type MaybeHealth,
  missingUpstreamError,
} from '../../../engine/index.ts';
import { metadataFromLabels } from '../catalog/image-metadata.ts';
import { parseImageReference } from '../shared/image-reference.ts';
import type { AnyModel } from '../shared/kinds.ts';

export type MetadataSource = 'Spec' | 'Status' | 'Registry' | 'Disabled';

export interface MetadataObservation {
  source: MetadataSource;
  result?: FetchResult<AIMImageMetadata>;
}

/** reads the registry only when neither the spec nor an earlier status has the metadata */
export async function fetchImageMetadata(
  model: AnyModel,
  registry: ImageRegistry | undefined,
  operatorNamespace: string,
): Promise<MetadataObservation> {
  const target = { kind: 'Image', name: model.spec.image };
  if (model.spec.imageMetadata) return { source: 'Spec', result: FetchResult.of(model.spec.imageMetadata, target) };
  if (model.spec.discovery?.extractMetadata === false || model.spec.modelSources?.length) return { source: 'Disabled' };
  if (model.status?.imageMetadata)
    return { source: 'Status', result: FetchResult.of(model.status.imageMetadata, target) };
  // no registry client in this process (a test, or an air-gapped operator): no labels to read
  if (!registry || !parseImageReference(model.spec.image).ok) return { source: 'Disabled' };
  const auth = {
    pullSecrets: (model.spec.imagePullSecrets ?? []).map((s) => s.name),
    namespace: model.metadata.namespace || operatorNamespace,
  };
  try {
    const labels = await registry.imageLabels(model.spec.image, auth);
    const parsed = metadataFromLabels(labels);
    if (!parsed.ok)
      return {
        source: 'Registry',
        result: FetchResult.failure(
          invalidSpecError('InvalidImageLabels', `spec.image ${model.spec.image}: ${parsed.message}`),
          target,
        ),
      };
    return { source: 'Registry', result: FetchResult.of(parsed.metadata, target) };
  } catch (err) {
    return { source: 'Registry', result: FetchResult.failure(registryError(model.spec.image, err), target) };
  }
}

function registryError(image: string, err: unknown) {
  const message = `spec.image ${image}: ${err instanceof Error ? err.message : String(err)}`;
  if (err instanceof RegistryError && err.kind === 'NotFound')
    return missingUpstreamError('ImageNotFound', message, err);
  if (err instanceof RegistryError && err.kind === 'Auth')
    return authError('ImagePullAuthFailure', `${message}; check spec.imagePullSecrets`, err);
  if (err instanceof RegistryError && err.kind === 'Invalid') return invalidSpecError('InvalidImage', message, err);
  return infrastructureError('RegistryUnavailable', message, err);
}

export function metadataHealth(obs: MetadataObservation): MaybeHealth {
  if (!obs.result) return undefined;
  return obs.result.toUpstreamComponentHealth('ImageMetadata', (m) => {
    const deployments = m.model?.recommendedDeployments?.length ?? 0;
    const from = obs.source === 'Spec' ? 'spec.imageMetadata' : 'the image labels';
    return {
      state: 'Ready',
      reason: 'MetadataExtracted',
      message: `${m.model?.canonicalName ?? 'model'} from ${from}: ${deployments} recommended deployment${deployments === 1 ? '' : 's'}`,
    };
  });
}

// The fetch side of an AIMService's model (docs/aim.md, "The service's model"): the model the service names,
// the one made for its custom spec, or the one with its image (its stored reference first), read through the
// pipeline's reader. The pure half (modes, health, the image served) is model.ts.

import type { KindRef } from '@modelplane/runtime/meta';
import { missingUpstreamError } from '../../../engine/errors.ts';
import { FetchResult, fetch, type ObjectReader } from '../../../engine/fetch-result.ts';
import { bestCandidate, type ResolvedReference, resolveWithStoredReference } from '../../../engine/references.ts';
import { listIndexed } from '../shared/indexed-list.ts';
import { AIMClusterModels, AIMModels, type AIMService } from '../shared/kinds.ts';
import {
  isModelReady,
  MODEL_IMAGE_INDEX,
  type ModelObject,
  type ModelObservation,
  modelImageIndex,
  modelMode,
} from './model.ts';

export async function fetchServiceModel(service: AIMService, reader: ObjectReader): Promise<ModelObservation> {
  const mode = modelMode(service.spec);
  const namespace = service.metadata.namespace ?? '';
  if (mode.kind === 'name') return { mode, model: await modelByName(reader, mode, namespace) };
  // the model made for the custom spec (NotFound: create it)
  if (mode.kind === 'custom') return { mode, model: await fetch<ModelObject>(reader, AIMModels, mode.name, namespace) };
  if (mode.kind !== 'image') return { mode };
  const image = mode.image;
  const stored = service.status?.resolvedModel;
  const model = await resolveWithStoredReference<ModelObject>({
    stored: stored?.name ? (stored as ResolvedReference) : undefined,
    fetchStored: (ref) =>
      ref.namespace
        ? fetch<ModelObject>(reader, AIMModels, ref.name, ref.namespace)
        : fetch<ModelObject>(reader, AIMClusterModels, ref.name),
    // a stored model that no longer has the service's image is not the service's model any more
    isReady: (m) => m.spec.image === image && isModelReady(m),
    resolve: () => modelByImage(reader, image, namespace),
  });
  return { mode, model };
}

async function modelByName(
  reader: ObjectReader,
  mode: { name: string; field: string },
  namespace: string,
): Promise<FetchResult<ModelObject>> {
  const own = await fetch<ModelObject>(reader, AIMModels, mode.name, namespace);
  if (own.ok() || !own.isNotFound()) return own;
  const cluster = await fetch<ModelObject>(reader, AIMClusterModels, mode.name);
  if (cluster.ok() || !cluster.isNotFound()) return cluster;
  const message = `${mode.field}: no AIMModel ${namespace}/${mode.name} and no AIMClusterModel ${mode.name} exist`;
  return FetchResult.failure(missingUpstreamError('ModelNotFound', message), {
    kind: 'AIMModel',
    name: mode.name,
    namespace,
  });
}

/** namespaced models with the image win over cluster models; among several, a Ready one, then by name */
async function modelByImage(reader: ObjectReader, image: string, namespace: string): Promise<FetchResult<ModelObject>> {
  const target = { kind: 'AIMModel', namespace };
  try {
    const own = await withImage<ModelObject>(reader, AIMModels, image, namespace);
    const candidates = own.length > 0 ? own : await withImage<ModelObject>(reader, AIMClusterModels, image);
    const best = bestCandidate(candidates, isModelReady);
    return best
      ? FetchResult.of(best, {
          kind: best.kind,
          name: best.metadata.name ?? '',
          ...(best.metadata.namespace ? { namespace } : {}),
        })
      : FetchResult.notFound(target);
  } catch (err) {
    return FetchResult.failure(err, target);
  }
}

function withImage<T extends ModelObject>(
  reader: ObjectReader,
  kind: KindRef<T>,
  image: string,
  namespace?: string,
): Promise<T[]> {
  return listIndexed(reader, kind, { name: MODEL_IMAGE_INDEX, fn: modelImageIndex, value: image }, namespace);
}

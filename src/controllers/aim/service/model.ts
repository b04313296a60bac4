// Which model an AIMService serves (docs/aim.md): `spec.model.name` (alias `ref`) names an AIMModel in
// the service's namespace, else an AIMClusterModel; `spec.model.image` finds a model with that image (the
// namespace first, through a cache index) or has one created; `spec.model.custom` serves its base image
// directly. This half is pure; model-fetch.ts reads the models.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMServiceSpec } from '../../../apis/aim/index.ts';
import { invalidSpecError } from '../../../engine/errors.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { ComponentHealth } from '../../../engine/health.ts';
import type { ResolvedReference } from '../../../engine/references.ts';
import { parseImageReference } from '../shared/image-reference.ts';
import type { AIMClusterModel, AIMModel } from '../shared/kinds.ts';
import { type CustomModelSpec, customModelName } from './custom-model.ts';

export type ModelObject = AIMModel | AIMClusterModel;

export type ModelMode =
  | { kind: 'name'; name: string; field: 'spec.model.name' | 'spec.model.ref' }
  | { kind: 'image'; image: string }
  | { kind: 'custom'; image: string; custom: CustomModelSpec; name: string }
  | { kind: 'invalid'; reason: 'InvalidModelSpec' | 'InvalidImageReference'; message: string };

export interface ModelObservation {
  mode: ModelMode;
  /** name and image modes. Image mode: NotFound means "no model has this image yet: create one" */
  model?: FetchResult<ModelObject>;
}

/** is the model missing (deleted, or never there)? */
export function modelMissing(result: FetchResult<ModelObject> | undefined): boolean {
  return (
    result !== undefined &&
    (result.isNotFound() || (result.hasError() && result.categorized()?.reason === 'ModelNotFound'))
  );
}

/** the cache index of AIMModels and AIMClusterModels by spec.image */
export const MODEL_IMAGE_INDEX = 'aim.eai.amd.com/model-image';
export const modelImageIndex = (o: KubeObject): string[] => {
  const image = ((o as { spec?: unknown }).spec as { image?: unknown } | undefined)?.image;
  return typeof image === 'string' && image !== '' ? [image] : [];
};

export function modelMode(spec: AIMServiceSpec): ModelMode {
  const m = spec.model ?? {};
  const set = (['name', 'ref', 'image', 'custom'] as const).filter((k) => m[k] !== undefined);
  // the CRD's CEL rule enforces this; an object stored before the rule existed still must not crash us
  if (set.length !== 1)
    return {
      kind: 'invalid',
      reason: 'InvalidModelSpec',
      message: `spec.model: exactly one of name (or ref), image or custom must be set, found ${set.length === 0 ? 'none' : set.join(', ')}`,
    };
  if (m.name !== undefined) return { kind: 'name', name: m.name, field: 'spec.model.name' };
  if (m.ref !== undefined) return { kind: 'name', name: m.ref, field: 'spec.model.ref' };
  if (m.image !== undefined) {
    const checked = checkedImage('image', m.image, 'spec.model.image');
    return checked.kind === 'invalid' ? checked : { kind: 'image', image: m.image };
  }
  const custom = m.custom!;
  const checked = checkedImage('custom', custom.baseImage ?? '', 'spec.model.custom.baseImage');
  return checked.kind === 'invalid'
    ? checked
    : { kind: 'custom', image: custom.baseImage, custom, name: customModelName(custom) };
}

/** an image a pod could never pull is reported on the service, before anything is created from it */
function checkedImage(
  kind: 'image' | 'custom',
  image: string,
  field: string,
): { kind: 'image' | 'custom'; image: string } | Extract<ModelMode, { kind: 'invalid' }> {
  const parsed = parseImageReference(image);
  if (!parsed.ok)
    return {
      kind: 'invalid',
      reason: 'InvalidImageReference',
      message: `${field}: image reference ${JSON.stringify(image.slice(0, 256))} ${parsed.message}`,
    };
  return { kind, image };
}

export function isModelReady(m: ModelObject): boolean {
  return (
    m.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ||
    m.status?.status === 'Ready'
  );
}

export function describeModel(m: ModelObject): string {
  return m.metadata.namespace ? `${m.kind} ${m.metadata.namespace}/${m.metadata.name}` : `${m.kind} ${m.metadata.name}`;
}

/** status.resolvedModel for a model */
export function modelReference(m: ModelObject): ResolvedReference {
  const namespaced = Boolean(m.metadata.namespace);
  return {
    kind: m.kind,
    name: m.metadata.name ?? '',
    namespace: m.metadata.namespace ?? '',
    scope: namespaced ? 'Namespace' : 'Cluster',
    uid: m.metadata.uid ?? '',
  };
}

/** the Model component: upstream when the user named it, downstream while we are creating it */
export function modelHealth(obs: ModelObservation): ComponentHealth {
  const { mode } = obs;
  if (mode.kind === 'invalid')
    return { component: 'Model', errors: [invalidSpecError(mode.reason, mode.message)], dependencyType: 'Upstream' };
  const result = obs.model!;
  if ((mode.kind === 'image' || mode.kind === 'custom') && result.isNotFound()) {
    return {
      component: 'Model',
      state: 'Progressing',
      reason: 'CreatingModel',
      message:
        mode.kind === 'image'
          ? `no AIMModel or AIMClusterModel has image ${mode.image}; creating one`
          : `creating AIMModel ${mode.name} for spec.model.custom (base image ${mode.image})`,
      dependencyType: 'Downstream',
    };
  }
  return result.toUpstreamComponentHealth('Model', (m) => {
    const what = describeModel(m);
    if (isModelReady(m))
      return { state: 'Ready', reason: 'ModelResolved', message: `${what} is Ready (image ${m.spec.image})` };
    const status = m.status?.status;
    if (status === 'Failed' || status === 'Degraded')
      return { state: 'Failed', reason: 'ModelNotReady', message: `${what} is ${status}` };
    if (status === 'NotAvailable')
      return { state: 'NotAvailable', reason: 'ModelNotReady', message: `${what} is NotAvailable` };
    return {
      state: 'Progressing',
      reason: 'ModelNotReady',
      message: `waiting for ${what} to become Ready (status ${status ?? 'not reported yet'})`,
    };
  });
}

/** the image the predictor runs, when the model is known */
export function servedImage(obs: ModelObservation): string | undefined {
  const { mode } = obs;
  if (mode.kind === 'custom' || mode.kind === 'image') return mode.image;
  if (mode.kind === 'name' && obs.model?.ok()) return obs.model.value.spec.image;
  return undefined;
}

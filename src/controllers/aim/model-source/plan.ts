// The model source's planner, health and status (docs/aim.md, "Model sources"), pure. The planner applies
// one AIMClusterModel per image to create (owned by the source, so deleting the source removes them) and
// re-applies the ones still offered; it never deletes one. Health: `FiltersReady` (all, some or no filters
// succeeded) and `ExistingModelsReady`; `MaxModelsLimitReached` says whether maxModels held models back.

import type { KubeObject } from '@modelplane/runtime/meta';
import { AIM_API_VERSION, ORIGIN_AUTO_GENERATED, ORIGIN_LABEL } from '../../../apis/aim/index.ts';
import { derivedName } from '../../../common/model-storage/names.ts';
import type { ConditionManager } from '../../../engine/conditions.ts';
import { authError, infrastructureError, invalidSpecError, missingUpstreamError } from '../../../engine/errors.ts';
import type { ComponentHealth } from '../../../engine/health.ts';
import { PlanResult } from '../../../engine/plan.ts';
import type { EngineStatus } from '../../../engine/types.ts';
import type { AIMClusterModelSource } from '../shared/kinds.ts';
import type { FilterFailure, SourceEvaluation } from './evaluate.ts';
import { imageUri, type ModelImage } from './filters.ts';

export const MODEL_SOURCE_LABEL = 'aim.eai.amd.com/model-source';
export const SOURCE_REGISTRY_ANNOTATION = 'aim.eai.amd.com/source-registry';
export const SOURCE_REPOSITORY_ANNOTATION = 'aim.eai.amd.com/source-repository';
export const SOURCE_TAG_ANNOTATION = 'aim.eai.amd.com/source-tag';
export const MAX_MODELS_CONDITION = 'MaxModelsLimitReached';

/** the status fields the model-source controller owns */
export interface ModelSourceStatus extends EngineStatus {
  status?: string;
  observedGeneration?: number;
  lastSyncTime?: string;
  discoveredModels?: number;
  availableModels?: number;
  modelsLimitReached?: boolean;
}

/** the value of the model-source label: the source's name, shortened with a hash when it is too long */
export function sourceLabelValue(source: string): string {
  return source.length <= 63 ? source : derivedName([source], [source]);
}

/** `<repository>-<tag>-<hash6 of registry, repository, tag>` */
export function clusterModelName(image: ModelImage): string {
  return derivedName([image.repository, image.tag], [image.registry, image.repository, image.tag], { hashLength: 6 });
}

export function clusterModelFor(source: AIMClusterModelSource, image: ModelImage): KubeObject {
  const pullSecrets = source.spec.imagePullSecrets;
  return {
    apiVersion: AIM_API_VERSION,
    kind: 'AIMClusterModel',
    metadata: {
      name: clusterModelName(image),
      labels: {
        [MODEL_SOURCE_LABEL]: sourceLabelValue(source.metadata.name ?? ''),
        [ORIGIN_LABEL]: ORIGIN_AUTO_GENERATED,
      },
      annotations: {
        [SOURCE_REGISTRY_ANNOTATION]: image.registry,
        [SOURCE_REPOSITORY_ANNOTATION]: image.repository,
        [SOURCE_TAG_ANNOTATION]: image.tag,
      },
    },
    spec: {
      image: imageUri(image),
      ...(pullSecrets?.length ? { imagePullSecrets: pullSecrets.map((s) => ({ name: s.name })) } : {}),
    },
  } as KubeObject;
}

/** new models within the limit, and the ones still offered again; the next sync is asked for */
export function planModelSource(source: AIMClusterModelSource, ev: SourceEvaluation, nextSyncInMs: number): PlanResult {
  const plan = new PlanResult();
  for (const image of [...ev.keep, ...ev.create]) plan.apply(clusterModelFor(source, image));
  if (nextSyncInMs > 0) plan.requeueAfter(nextSyncInMs);
  return plan;
}

function failureError(f: FilterFailure) {
  switch (f.kind) {
    case 'Auth':
      return authError(
        'RegistryAuthFailed',
        `${f.message}; check spec.imagePullSecrets (Secrets of type kubernetes.io/dockerconfigjson in the operator namespace)`,
      );
    case 'Unavailable':
      return infrastructureError('RegistryUnavailable', f.message);
    case 'NotFound':
      return missingUpstreamError('RepositoryNotFound', f.message);
    case 'Invalid':
      return invalidSpecError('InvalidFilter', f.message);
  }
}

/** FiltersReady: every filter listed; some failed (Degraded, the others still add models); all failed */
export function filtersHealth(ev: SourceEvaluation): ComponentHealth {
  const failed = ev.filters.filter((o) => o.failures.length > 0);
  if (ev.filters.length === 0)
    return { component: 'Filters', state: 'Progressing', reason: 'NoFilters', message: 'spec.filters is empty' };
  const found = `${ev.offered.length} image${ev.offered.length === 1 ? '' : 's'} matched`;
  if (failed.length === 0)
    return {
      component: 'Filters',
      state: 'Ready',
      reason: 'AllFiltersSucceeded',
      message: `${ev.filters.length} filter${ev.filters.length === 1 ? '' : 's'} listed: ${found}`,
    };
  const messages = failed.flatMap((o) => o.failures.map((f) => f.message));
  const summary = messages.slice(0, 3).join('; ') + (messages.length > 3 ? `; and ${messages.length - 3} more` : '');
  if (failed.length < ev.filters.length)
    return {
      component: 'Filters',
      state: 'Degraded',
      reason: 'SomeFiltersFailed',
      message: `${failed.length} of ${ev.filters.length} filters failed (${found} by the others): ${summary}`,
    };
  // nothing listed at all: the errors decide (auth, outage, spec), and the parent conditions name them
  const errors = failed.flatMap((o) => o.failures.map(failureError));
  return { component: 'Filters', reason: 'AllFiltersFailed', message: `every filter failed: ${summary}`, errors };
}

export function existingModelsHealth(ev: SourceEvaluation): ComponentHealth {
  const created = ev.create.length;
  return {
    component: 'ExistingModels',
    state: 'Ready',
    reason: 'ModelsSynced',
    message: `${ev.modelCount} AIMClusterModel${ev.modelCount === 1 ? '' : 's'} from this source${created ? ` (${created} created by this sync)` : ''}`,
  };
}

/** counts, the last sync and MaxModelsLimitReached (informational: it does not end in Ready) */
export function decorateModelSourceStatus(
  status: ModelSourceStatus,
  cm: ConditionManager,
  ev: SourceEvaluation,
  syncedAt: number,
): void {
  status.discoveredModels = ev.modelCount;
  status.availableModels = ev.offered.length;
  status.modelsLimitReached = ev.overLimit > 0;
  status.lastSyncTime = new Date(syncedAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (ev.overLimit > 0)
    cm.markTrue(
      MAX_MODELS_CONDITION,
      'LimitReached',
      `spec.maxModels is ${ev.maxModels}: ${ev.overLimit} matching image${ev.overLimit === 1 ? ' was' : 's were'} not turned into models; raise spec.maxModels or narrow spec.filters`,
    );
  else cm.markFalse(MAX_MODELS_CONDITION, 'WithinLimit', `${ev.modelCount} of at most ${ev.maxModels} models`);
}

// A service whose InferenceService exists and carries its serving inputs (serving-inputs.ts): the model,
// template and cache are looked at only to say how they are doing, never to rebuild the predictor. Each
// of them reports Ready for the service while the predictor runs from what it was built with, with a
// reason and message naming what changed upstream and what to do if that change should reach the
// predictor (docs/aim.md, "A running service is never disturbed").
import {
  type ComponentHealth,
  type FetchResult,
  fetch,
  type ObjectReader,
  type ResolvedReference,
} from '../../../engine/index.ts';
import {
  AIMClusterModels,
  AIMClusterServiceTemplates,
  AIMModels,
  type AIMService,
  AIMServiceTemplates,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { type CacheObservation, isTemplateReady } from './catalog.ts';
import { fetchCacheForTemplate } from './catalog-fetch.ts';
import { isModelReady, type ModelObject } from './model.ts';
import { describeRef, type ServingInputs } from './serving-inputs.ts';

export interface RunningObservation {
  inputs: ServingInputs;
  /** the model the InferenceService was built from, as it is now */
  model?: FetchResult<ModelObject>;
  /** the template it was built from, as it is now */
  template?: FetchResult<AnyTemplate>;
}

export async function fetchRunning(
  service: AIMService,
  reader: ObjectReader,
  inputs: ServingInputs,
  mountsCache: boolean,
): Promise<{ running: RunningObservation; cache?: CacheObservation }> {
  const m = inputs.model;
  const t = inputs.template;
  const [model, template, cache] = await Promise.all([
    m
      ? m.namespace
        ? fetch<ModelObject>(reader, AIMModels, m.name, m.namespace)
        : fetch<ModelObject>(reader, AIMClusterModels, m.name)
      : undefined,
    t
      ? t.namespace
        ? fetch<AnyTemplate>(reader, AIMServiceTemplates, t.name, t.namespace)
        : fetch<AnyTemplate>(reader, AIMClusterServiceTemplates, t.name)
      : undefined,
    t && mountsCache ? fetchCacheForTemplate(service, reader, t.name) : undefined,
  ]);
  const running: RunningObservation = {
    inputs,
    ...(model ? { model } : {}),
    ...(template ? { template } : {}),
  };
  return { running, ...(cache ? { cache } : {}) };
}

const KEEPS = 'the running InferenceService keeps the configuration it was created with and is not rolled out';
const REBUILD = (isvc: string) =>
  `to rebuild it from the chain as it is now, delete InferenceService ${isvc} (the service recreates it once model, template and cache are Ready)`;

/** did the object of that name get replaced since the InferenceService was built from it? */
function replaced(ref: ResolvedReference, value: { metadata: { uid?: string } }): boolean {
  return Boolean(ref.uid && value.metadata.uid && ref.uid !== value.metadata.uid);
}

function upstreamRead(component: string, result: FetchResult<unknown>): ComponentHealth | undefined {
  if (result.ok() || result.isNotFound()) return undefined;
  // the cache could not answer: say so, without judging the model from nothing
  return { component, errors: [result.error], dependencyType: 'Upstream' };
}

export function runningModelHealth(r: RunningObservation, isvc: string): ComponentHealth {
  const ref = r.inputs.model;
  const component = 'Model';
  const base = { component, state: 'Ready' as const, dependencyType: 'Upstream' as const };
  if (!ref || !r.model)
    return { ...base, reason: 'ModelResolved', message: `the InferenceService serves image ${r.inputs.image}` };
  const what = describeRef(ref, 'AIMModel');
  const failed = upstreamRead(component, r.model);
  if (failed) return failed;
  if (!r.model.ok())
    return {
      ...base,
      reason: 'ModelDeleted',
      message: `${what} was deleted; ${KEEPS} (image ${r.inputs.image}); recreate the model before the InferenceService has to be rebuilt`,
    };
  const m = r.model.value;
  if (replaced(ref, m))
    return {
      ...base,
      reason: 'ModelRecreated',
      message: `${what} was deleted and recreated; ${KEEPS} (image ${r.inputs.image}); ${REBUILD(isvc)}`,
    };
  if (m.spec.image !== r.inputs.image)
    return {
      ...base,
      reason: 'ModelChanged',
      message: `${what} now has image ${m.spec.image}; ${KEEPS} (image ${r.inputs.image}); ${REBUILD(isvc)}`,
    };
  if (!isModelReady(m))
    return {
      ...base,
      reason: 'ModelNotReadyWhileServing',
      message: `${what} is ${m.status?.status ?? 'not Ready'}; ${KEEPS} (image ${r.inputs.image})`,
    };
  return { ...base, reason: 'ModelResolved', message: `${what} is Ready (image ${m.spec.image})` };
}

export function runningTemplateHealth(r: RunningObservation, isvc: string): ComponentHealth | undefined {
  const ref = r.inputs.template;
  if (!ref || !r.template) return undefined;
  const component = 'Template';
  const base = { component, state: 'Ready' as const, dependencyType: 'Upstream' as const };
  const what = describeRef(ref, 'AIMServiceTemplate');
  const failed = upstreamRead(component, r.template);
  if (failed) return failed;
  if (!r.template.ok())
    return {
      ...base,
      reason: 'TemplateDeleted',
      message: `${what} was deleted; the running InferenceService keeps serving with the configuration it was created with and is not rolled out; spec and runtime-config changes still reach it`,
    };
  const t = r.template.value;
  if (replaced(ref, t))
    return {
      ...base,
      reason: 'TemplateRecreated',
      message: `${what} was deleted and recreated; ${KEEPS}; ${REBUILD(isvc)}`,
    };
  if (!isTemplateReady(t)) {
    const s = t.status?.status ?? 'not Ready';
    const why = s === 'NotAvailable' ? ' (no node has its GPU now)' : '';
    return { ...base, reason: 'TemplateNotReadyWhileServing', message: `${what} is ${s}${why}; ${KEEPS}` };
  }
  return { ...base, reason: 'Resolved', message: `${what} is Ready` };
}

export function runningCacheHealth(
  cache: CacheObservation | undefined,
  canRecreate: boolean,
): ComponentHealth | undefined {
  if (!cache) return undefined;
  const component = 'Cache';
  const base = { component, state: 'Ready' as const, dependencyType: 'Downstream' as const };
  const failed = upstreamRead(component, cache.cache);
  if (failed) return { ...failed, dependencyType: 'Downstream' };
  const keeps = 'the running InferenceService keeps serving from the volumes it mounts';
  if (!cache.cache.ok())
    return {
      ...base,
      reason: 'CacheRebuilding',
      message: canRecreate
        ? `AIMTemplateCache ${cache.name} is gone; recreating it; ${keeps}`
        : `AIMTemplateCache ${cache.name} is gone and its template is not Ready, so it is not recreated yet; ${keeps}`,
    };
  const s = cache.cache.value.status?.status;
  if (s === 'Ready') return { ...base, reason: 'CacheReady', message: `AIMTemplateCache ${cache.name} is Ready` };
  if (s === 'Pending' || s === 'Progressing' || s === undefined)
    return {
      ...base,
      reason: 'CacheRebuilding',
      message: `AIMTemplateCache ${cache.name} is ${s ?? 'Pending'}; ${keeps}`,
    };
  // failed or not available: not being rebuilt, so say why (its own Ready condition), not "rebuilding"
  const why = cache.cache.value.status?.conditions?.find((c) => c.type === 'Ready' && c.status !== 'True')?.message;
  return {
    ...base,
    reason: 'CacheNotReadyWhileServing',
    message: `AIMTemplateCache ${cache.name} is ${s}${why ? ` (${why})` : ''}; ${keeps}`,
  };
}

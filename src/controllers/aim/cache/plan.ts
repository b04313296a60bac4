// The AIMTemplateCache planner, health and status (docs/aim.md, "Caches and artifacts"). Pure: for each of
// the template's model sources, an existing artifact with the same source (and storage class) of the
// cache's mode is reused (Shared caches use only unowned artifacts, Dedicated ones only their own), else
// one is created: owned by a Dedicated cache, unowned for a Shared one.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMModelSourceSpec, AIMTemplateCacheStatus } from '../../../apis/aim/index.ts';
import { mergeEnvByName } from '../../../common/env-merge/index.ts';
import { derivedName } from '../../../common/model-storage/index.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { ComponentHealth } from '../../../engine/health.ts';
import { PlanResult } from '../../../engine/plan.ts';
import type { EngineStatus, MaybeHealth } from '../../../engine/types.ts';
import { type AIMArtifact, AIMArtifacts, type AIMTemplateCache, type AnyTemplate } from '../shared/kinds.ts';
import { type AimRuntimeConfig, runtimeConfigHealth } from '../shared/runtime-config-source.ts';

export const CACHE_LABEL = 'aim.eai.amd.com/template-cache.name';
export const CACHE_MOUNT_ROOT = '/workspace/cache';

/** the cache index of template caches by spec.templateName */
export const CACHE_TEMPLATE_INDEX = 'aim.eai.amd.com/cache-template';
export const cacheTemplateIndex = (o: KubeObject) => [(o as AIMTemplateCache).spec?.templateName ?? ''];

export interface CacheFetch {
  template: FetchResult<AnyTemplate>;
  /** the artifacts in the namespace with one of the sources' URIs */
  artifacts: AIMArtifact[];
}

export interface CacheEntry {
  source: AIMModelSourceSpec;
  name: string;
  existing?: AIMArtifact;
  desired?: KubeObject;
}

export interface CacheObservation extends CacheFetch {
  sources: AIMModelSourceSpec[];
  entries: CacheEntry[];
}

const isDedicated = (c: AIMTemplateCache) => c.spec.mode === 'Dedicated';
const ownedBy = (a: KubeObject, c: KubeObject) =>
  (a.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === c.metadata.uid);
const statusRank = (a: AIMArtifact) => ['Ready', 'Progressing', 'Pending'].indexOf(a.status?.status ?? 'Pending');

export function artifactName(cache: AIMTemplateCache, source: AIMModelSourceSpec): string {
  const env = mergeEnvByName(cache.spec.env, source.env);
  const inputs = [
    source.sourceUri,
    env,
    cache.spec.storageClassName ?? '',
    ...(isDedicated(cache) ? ['dedicated', cache.metadata.name ?? ''] : []),
  ];
  return derivedName([source.sourceUri.replace(/\./g, '-')], inputs, { hashLength: 10 });
}

/** where a source's weights are mounted in the InferenceService */
export function mountPoint(source: AIMModelSourceSpec): string {
  const id = (source.modelId ?? source.sourceUri.replace(/^[a-z0-9]+:\/\//, '')).replace(/\.\./g, '');
  return `${CACHE_MOUNT_ROOT}/${id}`;
}

function sourcesOf(cache: AIMTemplateCache, template: FetchResult<AnyTemplate>): AIMModelSourceSpec[] {
  if (cache.spec.modelSources?.length) return cache.spec.modelSources;
  return template.ok() ? (template.value.status?.modelSources ?? []) : [];
}

function artifactObject(cache: AIMTemplateCache, source: AIMModelSourceSpec, name: string): KubeObject {
  const env = mergeEnvByName(cache.spec.env, source.env);
  return {
    apiVersion: AIMArtifacts.apiVersion,
    kind: AIMArtifacts.kind,
    metadata: {
      name,
      namespace: cache.metadata.namespace ?? '',
      labels: {
        [CACHE_LABEL]: (cache.metadata.name ?? '').slice(0, 63),
        'aim.eai.amd.com/template.name': cache.spec.templateName.slice(0, 63),
        'aim.eai.amd.com/template.scope': cache.spec.templateScope,
        'aim.eai.amd.com/template-created': 'true',
      },
    },
    spec: {
      sourceUri: source.sourceUri,
      ...(source.modelId ? { modelId: source.modelId } : {}),
      ...(source.size !== undefined ? { size: source.size } : {}),
      ...(cache.spec.storageClassName ? { storageClassName: cache.spec.storageClassName } : {}),
      ...(env.length ? { env } : {}),
      ...(cache.spec.downloadImage ? { modelDownloadImage: cache.spec.downloadImage } : {}),
      ...(cache.spec.imagePullSecrets?.length
        ? { imagePullSecrets: cache.spec.imagePullSecrets.map((s) => ({ name: s.name })) }
        : {}),
      ...(cache.spec.runtimeConfigName ? { runtimeConfigName: cache.spec.runtimeConfigName } : {}),
    },
  };
}

export function composeCache(cache: AIMTemplateCache, fetched: CacheFetch): CacheObservation {
  const sources = sourcesOf(cache, fetched.template);
  const entries = sources.map((source): CacheEntry => {
    const name = artifactName(cache, source);
    const usable = fetched.artifacts
      .filter(
        (a) =>
          a.spec.sourceUri === source.sourceUri &&
          (!cache.spec.storageClassName || a.spec.storageClassName === cache.spec.storageClassName),
      )
      .filter((a) =>
        isDedicated(cache) ? ownedBy(a, cache) : !(a.metadata.ownerReferences ?? []).some((r) => r.controller),
      )
      .sort(
        (x, y) =>
          (statusRank(x) < 0 ? 9 : statusRank(x)) - (statusRank(y) < 0 ? 9 : statusRank(y)) ||
          (x.metadata.name ?? '').localeCompare(y.metadata.name ?? ''),
      );
    const existing = usable.find((a) => a.metadata.name === name) ?? usable[0];
    return existing
      ? { source, name: existing.metadata.name ?? name, existing }
      : { source, name, desired: artifactObject(cache, source, name) };
  });
  return { ...fetched, sources, entries };
}

export function planCache(cache: AIMTemplateCache, obs: CacheObservation): PlanResult {
  const plan = new PlanResult();
  for (const e of obs.entries) {
    if (!e.desired) continue;
    if (isDedicated(cache)) plan.apply(e.desired);
    else plan.applyWithoutOwnerRef(e.desired);
  }
  return plan;
}

function templateHealth(cache: AIMTemplateCache, obs: CacheObservation): ComponentHealth {
  return obs.template.toUpstreamComponentHealth('ServiceTemplate', (t) => {
    const what = `${t.kind} ${t.metadata.name}`;
    const s = t.status?.status;
    if (s === 'Ready') return { state: 'Ready', reason: 'TemplateReady', message: `${what} is Ready` };
    if (s === 'NotAvailable')
      return {
        state: 'NotAvailable',
        reason: 'TemplateNotAvailable',
        message: `${what} is NotAvailable (no GPU for it on this cluster)`,
      };
    if (s === 'Failed' || s === 'Degraded')
      return { state: 'Degraded', reason: 'TemplateNotReady', message: `${what} is ${s}` };
    return {
      state: 'Pending',
      reason: 'TemplateNotReady',
      message: `waiting for ${what} (spec.templateName of AIMTemplateCache ${cache.metadata.name}) to be Ready`,
    };
  });
}

function artifactsHealth(obs: CacheObservation): MaybeHealth {
  if (!obs.template.ok() && obs.sources.length === 0) return undefined;
  const c = 'Artifacts';
  if (obs.sources.length === 0)
    return {
      component: c,
      state: 'Progressing',
      reason: 'NoCaches',
      message: 'the template reports no model sources yet',
    };
  const creating = obs.entries.filter((e) => e.desired || !e.existing?.status?.status);
  if (creating.length > 0)
    return {
      component: c,
      state: 'Progressing',
      reason: 'CreatingCaches',
      message: `creating artifacts ${creating.map((e) => e.name).join(', ')}`,
    };
  const states = obs.entries.map((e) => `${e.name}: ${e.existing?.status?.status}`).join(', ');
  if (obs.entries.every((e) => e.existing?.status?.status === 'Ready'))
    return {
      component: c,
      state: 'Ready',
      reason: 'AllCachesReady',
      message: `all ${obs.entries.length} artifacts are Ready`,
    };
  if (obs.entries.some((e) => e.existing?.status?.status === 'Failed'))
    return {
      component: c,
      state: 'Failed',
      reason: 'CachesFailed',
      message: `an artifact failed (${states}); it is retried`,
    };
  return { component: c, state: 'Progressing', reason: 'CachesNotReady', message: `artifacts downloading (${states})` };
}

export function cacheHealth(
  cache: AIMTemplateCache,
  obs: CacheObservation,
  rc: FetchResult<AimRuntimeConfig> | undefined,
): MaybeHealth[] {
  return [
    runtimeConfigHealth(rc),
    cache.spec.modelSources?.length ? undefined : templateHealth(cache, obs),
    artifactsHealth(obs),
  ];
}

export function decorateCacheStatus(
  status: EngineStatus & AIMTemplateCacheStatus,
  obs: CacheObservation,
  cache: AIMTemplateCache,
): void {
  status.resolvedTemplateKind =
    cache.spec.templateScope === 'Cluster' ? 'AIMClusterServiceTemplate' : 'AIMServiceTemplate';
  const artifacts: NonNullable<AIMTemplateCacheStatus['artifacts']> = {};
  for (const e of obs.entries) {
    if (!e.existing) continue;
    artifacts[e.name] = {
      uid: e.existing.metadata.uid ?? '',
      name: e.name,
      model: e.source.modelId ?? e.source.sourceUri,
      status: e.existing.status?.status ?? 'Pending',
      ...(e.existing.status?.persistentVolumeClaim
        ? { persistentVolumeClaim: e.existing.status.persistentVolumeClaim }
        : {}),
      mountPoint: mountPoint(e.source),
    };
  }
  if (Object.keys(artifacts).length) status.artifacts = artifacts;
  else delete status.artifacts;
}

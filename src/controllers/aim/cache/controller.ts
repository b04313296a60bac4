// The AIMTemplateCache controller (docs/aim.md, "Caches and artifacts"): the artifacts for a template's
// model sources. It follows its template, the artifacts (its own and shared ones with its sources) and
// the runtime config it resolves.

import { type Controller, ignoreFinalizerChange, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, objectKeyString } from '@modelplane/runtime/meta';
import { type DomainReconciler, type EngineStatus, type FetchResult, fetch, Pipeline } from '../../../engine/index.ts';
import { type PolicyRule, READ, rule, WRITE } from '../../rbac.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { ARTIFACT_CLEANUP_FINALIZER, CACHE_ARTIFACT_CLEANUP, finalizingReconciler } from '../shared/finalizers.ts';
import { listIndexed } from '../shared/indexed-list.ts';
import {
  type AIMArtifact,
  AIMArtifacts,
  AIMClusterServiceTemplates,
  AIMServiceTemplates,
  type AIMTemplateCache,
  AIMTemplateCaches,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import {
  type AimRuntimeConfig,
  aimRuntimeConfigSource,
  setResolvedRuntimeConfig,
} from '../shared/runtime-config-source.ts';
import {
  CACHE_TEMPLATE_INDEX,
  type CacheFetch,
  type CacheObservation,
  cacheHealth,
  cacheTemplateIndex,
  composeCache,
  decorateCacheStatus,
  planCache,
} from './plan.ts';

export const CACHE_CONTROLLER = 'aim-template-cache';
export const ARTIFACT_SOURCE_INDEX = 'aim.eai.amd.com/artifact-source';
const artifactSourceIndex = (o: KubeObject) => [(o as AIMArtifact).spec?.sourceUri ?? ''];

export const CACHE_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimtemplatecaches/status'], ['patch']),
  rule('aim.eai.amd.com', ['aimartifacts'], [...READ, ...WRITE]),
];

export const cacheReconciler: DomainReconciler<
  AIMTemplateCache,
  CacheFetch,
  CacheObservation,
  AimRuntimeConfig,
  EngineStatus
> = {
  async fetchRemoteState({ object, reader }) {
    const ns = object.metadata.namespace ?? '';
    const name = object.spec.templateName;
    const template: FetchResult<AnyTemplate> =
      object.spec.templateScope === 'Cluster'
        ? await fetch<AnyTemplate>(reader, AIMClusterServiceTemplates, name)
        : await fetch<AnyTemplate>(reader, AIMServiceTemplates, name, ns);
    const uris = new Set(
      [...(object.spec.modelSources ?? []), ...(template.ok() ? (template.value.status?.modelSources ?? []) : [])].map(
        (s) => s.sourceUri,
      ),
    );
    const artifacts = (
      await Promise.all(
        [...uris].map((uri) =>
          listIndexed(reader, AIMArtifacts, { name: ARTIFACT_SOURCE_INDEX, fn: artifactSourceIndex, value: uri }, ns),
        ),
      )
    ).flat();
    return { template, artifacts };
  },
  composeState: ({ object }, fetched) => composeCache(object, fetched),
  planResources: ({ object }, obs) => planCache(object, obs),
  getComponentHealth: (obs, { object, runtimeConfig }) => cacheHealth(object, obs, runtimeConfig),
  decorateStatus(status, _cm, obs, { object, runtimeConfig }) {
    decorateCacheStatus(status, obs, object);
    setResolvedRuntimeConfig(status, runtimeConfig);
  },
};

export function cachePipeline(operatorNamespace: string) {
  return new Pipeline({
    name: CACHE_CONTROLLER,
    reconciler: cacheReconciler,
    runtimeConfig: aimRuntimeConfigSource<AIMTemplateCache>(operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    labelPropagators: [runtimeConfigLabelPropagator],
    observedGeneration: true,
  });
}

export async function registerAimTemplateCacheController(
  mgr: Manager,
  opts: { operatorNamespace: string },
): Promise<Controller> {
  await mgr.cache.indexField(AIMArtifacts, ARTIFACT_SOURCE_INDEX, artifactSourceIndex);
  await mgr.cache.indexField(AIMTemplateCaches, CACHE_TEMPLATE_INDEX, cacheTemplateIndex);
  const caches = await mgr.cache.informer(AIMTemplateCaches);
  const keys = (list: KubeObject[]) => list.map((c) => objectKeyString(c.metadata.namespace, c.metadata.name ?? ''));
  const ofTemplate = (t: KubeObject) =>
    keys(
      caches.store
        .byIndex(CACHE_TEMPLATE_INDEX, t.metadata.name ?? '')
        .filter((c) => !t.metadata.namespace || c.metadata.namespace === t.metadata.namespace),
    );
  // any artifact with a source some cache in its namespace uses (shared artifacts have no owner to follow)
  const ofArtifact = (a: KubeObject) =>
    keys(caches.store.list().filter((c) => c.metadata.namespace === a.metadata.namespace));
  const builder = mgr
    .controller(CACHE_CONTROLLER)
    .for(AIMTemplateCaches, {
      predicates: [ignoreOwnStatusWrites(CACHE_CONTROLLER), ignoreFinalizerChange(ARTIFACT_CLEANUP_FINALIZER)],
    })
    .watches(AIMArtifacts as never, ofArtifact)
    .watches(AIMServiceTemplates as never, ofTemplate)
    .watches(AIMClusterServiceTemplates as never, ofTemplate)
    .withOptions({ levelBased: true, concurrency: 4 });
  await watchRuntimeConfigs(mgr, builder, AIMTemplateCaches, opts.operatorNamespace);
  return builder.complete(
    finalizingReconciler(AIMTemplateCaches, cachePipeline(opts.operatorNamespace), CACHE_ARTIFACT_CLEANUP),
  );
}

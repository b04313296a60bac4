// The AIMModel (namespaced) and AIMClusterModel (cluster) controllers: one skeleton, run once per scope.
// A model resolves its runtime config, reads its image metadata (spec, earlier status, or the registry),
// creates one template per recommended deployment plus its custom templates (owned), and rolls the state
// of every template of the model up into its own (docs/aim.md, "Models").

import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KindRef, type KubeObject, objectKeyString } from '@modelplane/runtime/meta';
import type { ImageRegistry } from '@modelplane/runtime/registry';
import type { AIMImageMetadata } from '../../../apis/aim/index.ts';
import type { ResolvedRuntimeConfigRef } from '../../../common/runtime-config/index.ts';
import {
  type DomainReconciler,
  type EngineStatus,
  Pipeline,
  PlanResult,
  pipelineReconciler,
} from '../../../engine/index.ts';
import { type PolicyRule, READ, rule, WRITE } from '../../rbac.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { listIndexed } from '../shared/indexed-list.ts';
import {
  AIMClusterModels,
  AIMClusterServiceTemplates,
  AIMModels,
  AIMServiceTemplates,
  type AnyModel,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import {
  type AimRuntimeConfig,
  aimRuntimeConfigSource,
  setResolvedRuntimeConfig,
} from '../shared/runtime-config-source.ts';
import { modelHealth } from './health.ts';
import { fetchImageMetadata, type MetadataObservation, metadataHealth } from './metadata.ts';
import { plannedTemplates, TEMPLATE_MODEL_INDEX, templateModelIndex, templatesHealth } from './templates.ts';

export const MODEL_FIELD_MANAGER = 'aim-model-controller';

/** what the two controllers read and write (status by server-side apply = PATCH) */
export const MODEL_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimmodels', 'aimclustermodels', 'aimruntimeconfigs', 'aimclusterruntimeconfigs'], READ),
  rule('aim.eai.amd.com', ['aimmodels/status', 'aimclustermodels/status'], ['patch']),
  rule('aim.eai.amd.com', ['aimservicetemplates', 'aimclusterservicetemplates'], [...READ, ...WRITE]),
];

/** the status fields this controller owns (status.status is Pending|Progressing|Ready|Degraded|Failed|NotAvailable) */
export interface AIMModelStatus extends EngineStatus {
  status?: string;
  observedGeneration?: number;
  resolvedRuntimeConfig?: ResolvedRuntimeConfigRef;
  imageMetadata?: AIMImageMetadata;
  sourceType?: 'Image' | 'Custom';
}

export interface ModelObservation {
  metadata: MetadataObservation;
  templates: AnyTemplate[];
  /** when the fetch ran (the auth retry's backoff counts from the AuthValid condition's transition) */
  now: number;
}

function knownMetadata(obs: ModelObservation): AIMImageMetadata | undefined {
  return obs.metadata.result?.ok() ? obs.metadata.result.value : undefined;
}

export function modelReconciler(
  registry: ImageRegistry | undefined,
  operatorNamespace: string,
  authRetryMinMs = AUTH_RETRY_MIN_MS,
): DomainReconciler<AnyModel, ModelObservation, ModelObservation, AimRuntimeConfig, AIMModelStatus> {
  return {
    async fetchRemoteState({ object, reader }) {
      const kind: KindRef<AnyTemplate> = object.metadata.namespace ? AIMServiceTemplates : AIMClusterServiceTemplates;
      const [metadata, templates] = await Promise.all([
        fetchImageMetadata(object, registry, operatorNamespace),
        listIndexed(
          reader,
          kind,
          { name: TEMPLATE_MODEL_INDEX, fn: templateModelIndex, value: object.metadata.name ?? '' },
          object.metadata.namespace,
        ),
      ]);
      return { metadata, templates, now: Date.now() };
    },
    planResources({ object }, obs) {
      const plan = new PlanResult();
      // credentials the registry refused are tried again: a pull Secret created or fixed meanwhile is used
      const retry = authRetryMs(object, obs, authRetryMinMs);
      if (retry !== undefined) plan.requeueAfter(retry);
      // templates are created once the metadata says which (custom models need none)
      if (obs.metadata.result && !obs.metadata.result.ok()) return plan;
      for (const t of plannedTemplates(object, knownMetadata(obs))) plan.apply(t);
      return plan;
    },
    getComponentHealth: (obs, { object, runtimeConfig }) => [
      ...modelHealth(object, runtimeConfig),
      metadataHealth(obs.metadata),
      templatesHealth(
        object,
        obs.templates,
        knownMetadata(obs),
        obs.metadata.source === 'Disabled' || obs.metadata.result?.ok() === true,
      ),
    ],
    decorateStatus(status, _cm, obs, { object, runtimeConfig }) {
      setResolvedRuntimeConfig(status, runtimeConfig);
      const metadata = knownMetadata(obs);
      if (metadata && obs.metadata.source !== 'Spec') status.imageMetadata = metadata;
      else if (obs.metadata.source === 'Spec' && object.spec.imageMetadata)
        status.imageMetadata = object.spec.imageMetadata;
      status.sourceType = object.spec.modelSources?.length ? 'Custom' : 'Image';
    },
  };
}

export const AUTH_RETRY_MIN_MS = 10_000;
export const AUTH_RETRY_MAX_MS = 120_000;

/**
 * An image-metadata read the registry refused is retried with backoff: as long again as the failure has
 * lasted (AuthValid=False since), at least 10 s, at most 2 min, so credentials the registry fixed on its
 * side are picked up without an edit to the model. (A pull Secret the model names that is created or changed
 * reconciles the model at once: shared/secret-references.ts.)
 */
export function authRetryMs(
  model: AnyModel,
  obs: Pick<ModelObservation, 'metadata' | 'now'>,
  minMs = AUTH_RETRY_MIN_MS,
): number | undefined {
  const err = obs.metadata.result?.hasError() ? obs.metadata.result.categorized() : undefined;
  if (err?.category !== 'Auth') return undefined;
  const since = model.status?.conditions?.find(
    (c) => c.type === 'AuthValid' && c.status === 'False',
  )?.lastTransitionTime;
  const elapsed = since ? obs.now - Date.parse(since) : 0;
  const ms = Number.isFinite(elapsed) ? elapsed : 0;
  return Math.max(minMs, Math.min(AUTH_RETRY_MAX_MS, ms));
}

export interface ModelControllerOptions {
  operatorNamespace: string;
  /** where image labels come from; none: models get templates only from spec.imageMetadata or custom templates */
  registry?: ImageRegistry;
  /** the least wait before a refused registry read is tried again (default 10 s; tests raise it) */
  authRetryMinMs?: number;
}

export function modelPipeline(
  opts: ModelControllerOptions,
  name = 'aim-model',
): Pipeline<AnyModel, ModelObservation, ModelObservation, AimRuntimeConfig, AIMModelStatus> {
  return new Pipeline({
    name,
    reconciler: modelReconciler(opts.registry, opts.operatorNamespace, opts.authRetryMinMs),
    runtimeConfig: aimRuntimeConfigSource<AnyModel>(opts.operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    labelPropagators: [runtimeConfigLabelPropagator],
    observedGeneration: true,
  });
}

const VARIANTS: ReadonlyArray<{ kind: KindRef<AnyModel>; templates: KindRef<AnyTemplate>; controllerName: string }> = [
  { kind: AIMModels, templates: AIMServiceTemplates, controllerName: 'aim-model' },
  { kind: AIMClusterModels, templates: AIMClusterServiceTemplates, controllerName: 'aim-cluster-model' },
];

/** Registers the AIMModel and AIMClusterModel controllers: they follow their templates and the configs they resolve. */
export async function registerAimModelControllers(mgr: Manager, opts: ModelControllerOptions): Promise<Controller[]> {
  const controllers: Controller[] = [];
  for (const v of VARIANTS) {
    await mgr.cache.indexField(v.templates, TEMPLATE_MODEL_INDEX, templateModelIndex);
    // every template of the model counts, owned or written by a user
    const modelOf = (t: KubeObject) => [
      objectKeyString(t.metadata.namespace, (t as AnyTemplate).spec?.modelName ?? ''),
    ];
    const builder = mgr
      .controller(v.controllerName)
      .for(v.kind, { predicates: [ignoreOwnStatusWrites(MODEL_FIELD_MANAGER)] })
      .watches(v.templates, modelOf)
      .withOptions({ fieldManager: MODEL_FIELD_MANAGER, levelBased: true });
    await watchRuntimeConfigs(mgr, builder, v.kind, opts.operatorNamespace);
    controllers.push(builder.complete(pipelineReconciler(v.kind, modelPipeline(opts, v.controllerName))));
  }
  return controllers;
}

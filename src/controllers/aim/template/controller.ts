// The AIMServiceTemplate (namespaced) and AIMClusterServiceTemplate (cluster) controllers (docs/aim.md,
// "Templates"): discovery through a Job running the model image's dry-run, GPU gating from node labels
// (NotAvailable ↔ Ready as nodes are relabelled), and, for a namespaced template with caching enabled, the
// AIMTemplateCache named like it. One worker each, and one count of discovery Jobs for both (discovery-slots.ts).

import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KindRef, type KubeObject, objectKeyString } from '@modelplane/runtime/meta';
import {
  type Clock,
  type DomainReconciler,
  type EngineStatus,
  type Job,
  Pipeline,
  pipelineReconciler,
  systemClock,
} from '../../../engine/index.ts';
import { type PolicyRule, READ, rule, WRITE } from '../../rbac.ts';
import { parseDiscoveryOutput, TEMPLATE_LABEL } from '../catalog/discovery.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import {
  AIMClusterModels,
  AIMClusterServiceTemplates,
  AIMModels,
  AIMServiceTemplates,
  AIMTemplateCaches,
  type AnyTemplate,
} from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import { type AimRuntimeConfig, aimRuntimeConfigSource } from '../shared/runtime-config-source.ts';
import { currentJobName, discoveryStep } from './discovery-plan.ts';
import { DiscoverySlots } from './discovery-slots.ts';
import { DiscoveryJobs, fetchTemplateState, isDiscoveryJobActive, isDiscoveryThrottled, Nodes } from './fetch.ts';
import { decorateTemplateStatus, planTemplate, type TemplateObservation, templateHealth } from './plan.ts';

export const TEMPLATE_FIELD_MANAGER = 'aim-template-controller';

export const TEMPLATE_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimservicetemplates', 'aimclusterservicetemplates'], READ),
  rule('aim.eai.amd.com', ['aimservicetemplates/status', 'aimclusterservicetemplates/status'], ['patch']),
  rule('aim.eai.amd.com', ['aimtemplatecaches'], [...READ, ...WRITE]),
  rule('batch', ['jobs'], [...READ, ...WRITE]),
  rule('', ['pods', 'nodes'], READ),
  rule('', ['pods/log'], ['get']),
];

export interface TemplateControllerOptions {
  operatorNamespace: string;
  clock?: Clock;
  /** the first retry's wait after a failed discovery (doubling to an hour); default 60 s */
  discoveryBackoffBaseMs?: number;
  /** the discovery-Job count both template controllers of a process share */
  discoverySlots?: DiscoverySlots;
}

export function templateReconciler(
  opts: TemplateControllerOptions,
): DomainReconciler<
  AnyTemplate,
  Awaited<ReturnType<typeof fetchTemplateState>>,
  TemplateObservation,
  AimRuntimeConfig,
  EngineStatus
> {
  const clock = opts.clock ?? systemClock;
  const slots = opts.discoverySlots ?? new DiscoverySlots(clock);
  return {
    fetchRemoteState: (ctx) => fetchTemplateState(ctx, opts.operatorNamespace, clock),
    composeState({ object }, fetched) {
      const model = fetched.model;
      const blockedBy = !model.ok() ? 'waiting for the model' : undefined;
      const step = discoveryStep({
        templateName: object.metadata.name ?? '',
        inlineSources: (object.spec.modelSources?.length ?? 0) > 0,
        specHash: fetched.specHash,
        status: object.status,
        job: fetched.jobs.find(
          (j) =>
            !j.metadata.deletionTimestamp &&
            j.metadata.name === currentJobName(object.metadata.name ?? '', object.status, fetched.specHash),
        ),
        log: fetched.log,
        parse: parseDiscoveryOutput,
        activeJobs: slots.inUse(fetched.listedDiscoveryJobs, fetched.activeDiscoveryJobs),
        now: fetched.now,
        blockedBy,
        ...(opts.discoveryBackoffBaseMs !== undefined ? { backoffBaseMs: opts.discoveryBackoffBaseMs } : {}),
      });
      if (step.kind === 'start') slots.reserve(fetched.jobNamespace, step.jobName);
      return { ...fetched, step };
    },
    planResources: ({ object }, obs) => planTemplate(object, obs),
    getComponentHealth: (obs, { object, runtimeConfig }) => templateHealth(object, obs, runtimeConfig),
    decorateStatus: (status, _cm, obs, { object, runtimeConfig }) =>
      decorateTemplateStatus(status, obs, object, runtimeConfig),
  };
}

export function templatePipeline(opts: TemplateControllerOptions, name = 'aim-template') {
  return new Pipeline({
    name,
    reconciler: templateReconciler(opts),
    runtimeConfig: aimRuntimeConfigSource<AnyTemplate>(opts.operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    labelPropagators: [runtimeConfigLabelPropagator],
    observedGeneration: true,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
}

const VARIANTS: ReadonlyArray<{ kind: KindRef<AnyTemplate>; controllerName: string; models: KindRef<KubeObject> }> = [
  { kind: AIMServiceTemplates, controllerName: 'aim-template', models: AIMModels as KindRef<KubeObject> },
  {
    kind: AIMClusterServiceTemplates,
    controllerName: 'aim-cluster-template',
    models: AIMClusterModels as KindRef<KubeObject>,
  },
];

const TEMPLATE_MODEL_WATCH_INDEX = 'aim.eai.amd.com/template-model-watch';

/** Registers both template controllers: they follow their model, their Jobs, the nodes' GPU labels and configs. */
export async function registerAimTemplateControllers(
  mgr: Manager,
  opts: TemplateControllerOptions,
): Promise<Controller[]> {
  const controllers: Controller[] = [];
  // one count for both controllers: a cluster-wide limit
  const shared = { ...opts, discoverySlots: opts.discoverySlots ?? new DiscoverySlots(opts.clock ?? systemClock) };
  for (const v of VARIANTS) {
    await mgr.cache.indexField(v.kind, TEMPLATE_MODEL_WATCH_INDEX, (o) => [(o as AnyTemplate).spec?.modelName ?? '']);
    const templates = await mgr.cache.informer(v.kind);
    const all = () => templates.store.list().map((t) => objectKeyString(t.metadata.namespace, t.metadata.name ?? ''));
    const ofModel = (m: KubeObject) =>
      templates.store
        .byIndex(TEMPLATE_MODEL_WATCH_INDEX, m.metadata.name ?? '')
        .filter((t) => !m.metadata.namespace || t.metadata.namespace === m.metadata.namespace)
        .map((t) => objectKeyString(t.metadata.namespace, t.metadata.name ?? ''));
    // a Job of ours (cluster templates' Jobs live in the operator namespace: matched by label)
    const ofJob = (j: KubeObject) => {
      const label = j.metadata.labels?.[TEMPLATE_LABEL];
      if (!label) return [];
      return templates.store
        .list()
        .filter(
          (t) =>
            (t.metadata.name ?? '').startsWith(label) &&
            (!t.metadata.namespace || t.metadata.namespace === j.metadata.namespace),
        )
        .map((t) => objectKeyString(t.metadata.namespace, t.metadata.name ?? ''));
    };
    // a discovery Job that ends frees a slot of the cluster-wide limit: throttled templates try at once
    const throttled = () =>
      templates.store
        .list()
        .filter(isDiscoveryThrottled)
        .map((t) => objectKeyString(t.metadata.namespace, t.metadata.name ?? ''));
    const onJob = (j: KubeObject) => [...ofJob(j), ...(isDiscoveryJobActive(j as Job) ? [] : throttled())];
    const builder = mgr
      .controller(v.controllerName)
      .for(v.kind, { predicates: [ignoreOwnStatusWrites(TEMPLATE_FIELD_MANAGER)] })
      .watches(DiscoveryJobs as KindRef<KubeObject>, onJob)
      .watches(v.models, ofModel)
      // node GPU labels decide NotAvailable ↔ Ready for every template
      .watches(Nodes, all)
      .withOptions({ fieldManager: TEMPLATE_FIELD_MANAGER, levelBased: true, concurrency: 1 });
    if (v.kind === AIMServiceTemplates) builder.owns(AIMTemplateCaches);
    await watchRuntimeConfigs(mgr, builder, v.kind, opts.operatorNamespace);
    controllers.push(builder.complete(pipelineReconciler(v.kind, templatePipeline(shared, v.controllerName))));
  }
  return controllers;
}

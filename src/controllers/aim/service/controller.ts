// The thin AIMService controller: indexes and watches, then the pipeline. A service is reconciled when it
// changes, when its InferenceService or HTTPRoute changes, when a runtime config it resolves changes, and
// when a model it names (or whose image it serves) changes. Every lookup goes through a cache index.

import type { IndexFunc } from '@modelplane/runtime/cache';
import { HorizontalPodAutoscalers } from '@modelplane/runtime/client';
import { type Controller, ignoreFinalizerChange, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, keyOf } from '@modelplane/runtime/meta';
import { CACHE_TEMPLATE_INDEX, cacheTemplateIndex } from '../cache/plan.ts';
import { TEMPLATE_MODEL_INDEX, templateModelIndex } from '../model/templates.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { finalizingReconciler, SERVICE_CACHE_CLEANUP, TEMPLATE_CACHE_CLEANUP_FINALIZER } from '../shared/finalizers.ts';
import {
  AIMClusterModels,
  AIMClusterServiceTemplates,
  AIMModels,
  type AIMService,
  AIMServices,
  AIMServiceTemplates,
  type AIMTemplateCache,
  AIMTemplateCaches,
} from '../shared/kinds.ts';
import { HTTPRoutes, InferenceServices } from './children.ts';
import { MODEL_IMAGE_INDEX, modelImageIndex, modelMode } from './model.ts';
import { AIM_SERVICE_CONTROLLER, inferenceServiceName } from './names.ts';
import { aimServicePipeline } from './reconciler.ts';
import { kedaHpaName } from './replicas.ts';

/** AIMServices by the models they may resolve: `<namespace>/<name>` or `/<name>` (cluster), by name or image */
export const SERVICE_MODEL_INDEX = 'aim.eai.amd.com/service-model';

export const serviceModelIndex: IndexFunc = (obj) => {
  const service = obj as AIMService;
  const mode = modelMode(service.spec ?? { model: {} });
  const ns = service.metadata.namespace ?? '';
  if (mode.kind === 'name') return [`name:${ns}/${mode.name}`, `name:/${mode.name}`];
  if (mode.kind === 'image') return [`image:${ns}/${mode.image}`, `image:/${mode.image}`];
  if (mode.kind === 'custom') return [`name:${ns}/${mode.name}`];
  return [];
};

/** the index values under which services that may use `model` are filed */
export function modelKeys(model: KubeObject): string[] {
  const ns = model.metadata.namespace ?? '';
  const keys = [`name:${ns}/${model.metadata.name ?? ''}`];
  for (const image of modelImageIndex(model)) keys.push(`image:${ns}/${image}`);
  return keys;
}

/** AIMServices by the template they use (`tpl:<name>`), or, with none yet, by namespace (`free:<ns>`) */
export const SERVICE_TEMPLATE_INDEX = 'aim.eai.amd.com/service-template';

export const serviceTemplateIndex: IndexFunc = (obj) => {
  const service = obj as AIMService;
  const name = service.spec?.template?.name || service.status?.resolvedTemplate?.name;
  return name ? [`tpl:${name}`] : [`free:${service.metadata.namespace ?? ''}`, 'free:'];
};

export interface AimServiceControllerOptions {
  /** where cluster-scoped consumers resolve namespaced configs (AIM_SYSTEM_NAMESPACE, default aim-system) */
  operatorNamespace: string;
}

export async function registerAimServiceController(
  mgr: Manager,
  opts: AimServiceControllerOptions,
): Promise<Controller> {
  await mgr.cache.indexField(AIMModels, MODEL_IMAGE_INDEX, modelImageIndex);
  await mgr.cache.indexField(AIMClusterModels, MODEL_IMAGE_INDEX, modelImageIndex);
  await mgr.cache.indexField(AIMServices, SERVICE_MODEL_INDEX, serviceModelIndex);
  await mgr.cache.indexField(AIMServiceTemplates, TEMPLATE_MODEL_INDEX, templateModelIndex);
  await mgr.cache.indexField(AIMClusterServiceTemplates, TEMPLATE_MODEL_INDEX, templateModelIndex);
  const services = await mgr.cache.informer(AIMServices);
  const servicesUsing = (model: KubeObject) => [
    ...new Set(modelKeys(model).flatMap((k) => services.store.byIndex(SERVICE_MODEL_INDEX, k).map(keyOf))),
  ];
  await mgr.cache.indexField(AIMServices, SERVICE_TEMPLATE_INDEX, serviceTemplateIndex);
  await mgr.cache.indexField(AIMTemplateCaches, CACHE_TEMPLATE_INDEX, cacheTemplateIndex);
  // a template concerns the services using it and those still choosing one (its namespace, or all for a cluster template)
  const servicesOfTemplate = (t: KubeObject) => {
    const ns = t.metadata.namespace;
    const using = services.store
      .byIndex(SERVICE_TEMPLATE_INDEX, `tpl:${t.metadata.name ?? ''}`)
      .filter((s) => !ns || s.metadata.namespace === ns);
    return [...new Set([...using, ...services.store.byIndex(SERVICE_TEMPLATE_INDEX, `free:${ns ?? ''}`)].map(keyOf))];
  };
  const servicesOfCache = (c: KubeObject) => {
    const template = (c as AIMTemplateCache).spec?.templateName ?? '';
    // services still without a template in status may be writing one right now: they count too
    const using = services.store
      .byIndex(SERVICE_TEMPLATE_INDEX, `tpl:${template}`)
      .filter((s) => s.metadata.namespace === c.metadata.namespace);
    return [
      ...new Set(
        [...using, ...services.store.byIndex(SERVICE_TEMPLATE_INDEX, `free:${c.metadata.namespace ?? ''}`)].map(keyOf),
      ),
    ];
  };
  const servicesOfHpa = (hpa: KubeObject) =>
    services.store
      .list()
      .filter(
        (s) =>
          s.metadata.namespace === hpa.metadata.namespace &&
          kedaHpaName(inferenceServiceName(s.metadata.name ?? '')) === hpa.metadata.name,
      )
      .map(keyOf);
  const builder = mgr
    .controller(AIM_SERVICE_CONTROLLER)
    // our own status writes need no second reconcile; everyone else's changes do
    .for(AIMServices, {
      predicates: [
        ignoreOwnStatusWrites(AIM_SERVICE_CONTROLLER),
        ignoreFinalizerChange(TEMPLATE_CACHE_CLEANUP_FINALIZER),
      ],
    })
    .owns(InferenceServices)
    .owns(HTTPRoutes)
    .watches(AIMModels, servicesUsing)
    .watches(AIMClusterModels, servicesUsing)
    .watches(AIMServiceTemplates, servicesOfTemplate)
    .watches(AIMClusterServiceTemplates, servicesOfTemplate)
    .watches(AIMTemplateCaches, servicesOfCache)
    // status.runtime follows the KEDA HPA of an autoscaled predictor
    .watches(HorizontalPodAutoscalers, servicesOfHpa)
    // each reconcile waits on a few sequential writes: one worker leaves the API server idle (bench/aim.ts);
    // the pipeline reports what its own writes left behind, so their echoes need no second reconcile
    .withOptions({ concurrency: 8, levelBased: true });
  await watchRuntimeConfigs(mgr, builder, AIMServices, opts.operatorNamespace);
  return builder.complete(
    finalizingReconciler(
      AIMServices,
      aimServicePipeline({ operatorNamespace: opts.operatorNamespace }),
      SERVICE_CACHE_CLEANUP,
    ),
  );
}

// The templates a model creates (docs/aim.md, "Models"), and the model's state rolled up from every
// template of the model (its own and any a user wrote with the same spec.modelName). Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import type {
  AIMCustomTemplate,
  AIMHardware,
  AIMImageMetadata,
  AIMRecommendedDeployment,
} from '../../../apis/aim/index.ts';
import { ORIGIN_AUTO_GENERATED, ORIGIN_LABEL } from '../../../apis/aim/index.ts';
import { derivedName } from '../../../common/model-storage/index.ts';
import type { ComponentHealth } from '../../../engine/index.ts';
import { AIMClusterServiceTemplates, AIMServiceTemplates, type AnyModel, type AnyTemplate } from '../shared/kinds.ts';

export const MODEL_LABEL = 'aim.eai.amd.com/model';
/** the cache index of templates by spec.modelName */
export const TEMPLATE_MODEL_INDEX = 'aim.eai.amd.com/template-model';
export const templateModelIndex = (o: KubeObject): string[] => {
  const name = (o as AnyTemplate).spec?.modelName;
  return typeof name === 'string' && name ? [name] : [];
};

const METRIC_SHORT: Readonly<Record<string, string>> = { latency: 'lat', throughput: 'thr' };

function templateName(
  model: string,
  gpuCount: number,
  gpu: string,
  metric: string,
  precision: string,
  image: string,
): string {
  return derivedName(
    [model, `${gpuCount}x-${gpu}-${METRIC_SHORT[metric] ?? metric}-${precision}`],
    [model, image, gpu, `x${gpuCount}`, metric, precision],
    { hashLength: 4 },
  );
}

function templateObject(model: AnyModel, name: string, spec: Record<string, unknown>): KubeObject {
  const kind = model.metadata.namespace ? AIMServiceTemplates : AIMClusterServiceTemplates;
  const m = model.spec;
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: {
      name,
      ...(model.metadata.namespace ? { namespace: model.metadata.namespace } : {}),
      labels: { [MODEL_LABEL]: (model.metadata.name ?? '').slice(0, 63), [ORIGIN_LABEL]: ORIGIN_AUTO_GENERATED },
    },
    spec: {
      modelName: model.metadata.name ?? '',
      ...(m.runtimeConfigName ? { runtimeConfigName: m.runtimeConfigName } : {}),
      ...(m.imagePullSecrets?.length ? { imagePullSecrets: m.imagePullSecrets.map((s) => ({ name: s.name })) } : {}),
      ...(m.serviceAccountName ? { serviceAccountName: m.serviceAccountName } : {}),
      ...spec,
    },
  };
}

function fromRecommended(model: AnyModel, d: AIMRecommendedDeployment): KubeObject {
  const metric = d.metric?.toLowerCase();
  const precision = d.precision?.toLowerCase();
  const hardware = d.gpuModel && d.gpuCount ? { gpu: { requests: d.gpuCount, model: d.gpuModel } } : undefined;
  const name = templateName(
    model.metadata.name ?? '',
    d.gpuCount ?? 0,
    d.gpuModel ?? 'any',
    metric ?? 'any',
    precision ?? 'any',
    model.spec.image,
  );
  return templateObject(model, name, {
    ...(metric === 'latency' || metric === 'throughput' ? { metric } : {}),
    ...(precision ? { precision } : {}),
    ...(d.profileId ? { profileId: d.profileId } : {}),
    ...(hardware ? { hardware } : {}),
  });
}

function fromCustom(model: AnyModel, t: AIMCustomTemplate, i: number): KubeObject {
  const hardware: AIMHardware | undefined = t.hardware ?? model.spec.custom?.hardware;
  const gpu = hardware?.gpu;
  const name =
    t.name ||
    templateName(
      model.metadata.name ?? '',
      gpu?.requests ?? 0,
      gpu?.model ?? (gpu ? 'gpu' : 'cpu'),
      t.profile?.metric ?? 'any',
      t.profile?.precision ?? `custom${i}`,
      model.spec.image,
    );
  return templateObject(model, name, {
    type: t.type ?? model.spec.custom?.type ?? 'unoptimized',
    ...(t.profile?.metric ? { metric: t.profile.metric } : {}),
    ...(t.profile?.precision ? { precision: t.profile.precision } : {}),
    ...(hardware ? { hardware: structuredClone(hardware) } : {}),
    ...(t.env?.length ? { env: t.env.map((e) => ({ ...e })) } : {}),
    ...(model.spec.modelSources?.length ? { modelSources: structuredClone(model.spec.modelSources) } : {}),
  });
}

/**
 * One template per recommended deployment (image models) plus the custom ones. `createServiceTemplates:
 * false` turns off the generated ones only: the custom templates the user listed are still created.
 */
export function plannedTemplates(model: AnyModel, metadata: AIMImageMetadata | undefined): KubeObject[] {
  const custom = (model.spec.customTemplates ?? []).map((t, i) => fromCustom(model, t, i));
  if (model.spec.discovery?.createServiceTemplates === false) return custom;
  if (model.spec.modelSources?.length) {
    // a custom model: its custom templates, or one from spec.custom.hardware
    return custom.length > 0 ? custom : [fromCustom(model, {}, 0)];
  }
  const recommended = (metadata?.model?.recommendedDeployments ?? []).map((d) => fromRecommended(model, d));
  const byName = new Map<string, KubeObject>();
  for (const t of [...recommended, ...custom]) byName.set(t.metadata.name ?? '', t);
  return [...byName.values()];
}

/** does the model expect templates (so none yet means "creating")? undefined: not known before the metadata */
function expectsTemplates(
  model: AnyModel,
  metadata: AIMImageMetadata | undefined,
  metadataKnown: boolean,
): boolean | undefined {
  if (model.spec.discovery?.createServiceTemplates === false) return (model.spec.customTemplates?.length ?? 0) > 0;
  if (model.spec.modelSources?.length || model.spec.customTemplates?.length) return true;
  if (!metadataKnown) return undefined;
  return (metadata?.model?.recommendedDeployments?.length ?? 0) > 0;
}

/** the ServiceTemplates component: the model's state from all its templates */
export function templatesHealth(
  model: AnyModel,
  templates: readonly AnyTemplate[],
  metadata: AIMImageMetadata | undefined,
  metadataKnown: boolean,
): ComponentHealth {
  const component = model.metadata.namespace ? 'ServiceTemplates' : 'ClusterServiceTemplates';
  const states = templates.map((t) => t.status?.status ?? 'Pending');
  const count = (...s: string[]) => states.filter((x) => s.includes(x)).length;
  const n = states.length;
  if (n === 0) {
    const expects = expectsTemplates(model, metadata, metadataKnown);
    if (expects === undefined)
      return {
        component,
        state: 'Progressing',
        reason: 'AwaitingMetadata',
        message: 'waiting for the image metadata to know which templates to create',
      };
    if (expects)
      return {
        component,
        state: 'Progressing',
        reason: 'CreatingTemplates',
        message: 'creating the service templates',
      };
    return {
      component,
      state: 'Ready',
      reason: 'NoTemplatesExpected',
      message: 'the image recommends no deployment and the model has no custom templates',
    };
  }
  const list = templates.map((t) => `${t.metadata.name}: ${t.status?.status ?? 'Pending'}`).join(', ');
  if (count('Ready') === n)
    return { component, state: 'Ready', reason: 'AllTemplatesReady', message: `all ${n} templates are Ready` };
  if (count('Degraded', 'Failed') === n)
    return { component, state: 'Failed', reason: 'AllTemplatesFailed', message: `every template failed (${list})` };
  if (count('NotAvailable') === n)
    return {
      component,
      state: 'NotAvailable',
      reason: 'NoTemplatesAvailable',
      message: `no template can run on this cluster's GPUs (${list})`,
    };
  if (count('Degraded', 'Failed') > 0)
    return {
      component,
      state: 'Degraded',
      reason: 'SomeTemplatesDegraded',
      message: `some templates failed (${list})`,
    };
  if (count('Progressing', 'Pending') > 0)
    return {
      component,
      state: 'Progressing',
      reason: 'TemplatesProgressing',
      message: `templates are being discovered (${list})`,
    };
  return {
    component,
    state: 'Ready',
    reason: 'SomeTemplatesReady',
    message: `${count('Ready')} of ${n} templates are Ready, the others have no GPU on this cluster (${list})`,
  };
}

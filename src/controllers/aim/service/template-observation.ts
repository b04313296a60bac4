// Which template an AIMService's reconcile observes (docs/aim.md, "Template selection" and "Upstream objects
// deleted under a running service"): the named one, or one selected among the model's templates. A model
// that reports it expects no template is served from its image. And docs/controllers.md's gate on downstream existence: once the InferenceService runs,
// a template (or a model, whose templates go with it) deleted under it does not fail the service; the
// service keeps serving and says so, and the template matters again only if the InferenceService must be rebuilt.
import { fetch, type ObjectReader, type ResolvedReference } from '../../../engine/index.ts';
import { AIMClusterServiceTemplates, type AIMService, AIMServiceTemplates, type AnyTemplate } from '../shared/kinds.ts';
import { fetchServiceTemplate, type TemplateObservation } from './catalog.ts';
import type { ModelObject, ModelObservation } from './model.ts';

/** the component conditions a model reports its templates under */
const TEMPLATE_CONDITIONS = new Set(['ServiceTemplatesReady', 'ClusterServiceTemplatesReady']);

/** does the model report that it has no template to create (so it is served from its image)? */
export function modelExpectsNoTemplates(model: ModelObject): boolean {
  return (model.status?.conditions ?? []).some(
    (c) => TEMPLATE_CONDITIONS.has(c.type) && c.status === 'True' && c.reason === 'NoTemplatesExpected',
  );
}

/** does this observation leave the service without a usable template? */
function withoutTemplate(obs: TemplateObservation): boolean {
  if (obs.kind === 'unselected') return true;
  return (
    obs.kind === 'template' && obs.template.hasError() && obs.template.categorized()?.reason === 'TemplateNotFound'
  );
}

async function templateGone(reader: ObjectReader, ref: ResolvedReference): Promise<boolean> {
  const r = ref.namespace
    ? await fetch<AnyTemplate>(reader, AIMServiceTemplates, ref.name, ref.namespace)
    : await fetch<AnyTemplate>(reader, AIMClusterServiceTemplates, ref.name);
  return r.isNotFound();
}

export async function observeServiceTemplate(
  service: AIMService,
  reader: ObjectReader,
  model: ModelObservation,
  inferenceServiceExists: boolean,
): Promise<TemplateObservation> {
  const stored = service.status?.resolvedTemplate?.name
    ? (service.status.resolvedTemplate as ResolvedReference)
    : undefined;
  const named = service.spec.template?.name;
  const resolved = model.model?.ok() ? model.model.value : undefined;
  let obs: TemplateObservation;
  if (resolved)
    obs = await fetchServiceTemplate(service, reader, resolved.metadata.name, !modelExpectsNoTemplates(resolved));
  else if (named) obs = await fetchServiceTemplate(service, reader, undefined);
  else if (model.retained && stored) obs = await fetchServiceTemplate(service, reader, model.retained.name);
  else return { kind: 'none' };
  if (!inferenceServiceExists || !stored || !withoutTemplate(obs)) return obs;
  if (named && named !== stored.name) return obs;
  return (await templateGone(reader, stored)) ? { kind: 'retained', ref: stored } : obs;
}

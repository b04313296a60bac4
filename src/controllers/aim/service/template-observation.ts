// Which template an AIMService's reconcile observes while its InferenceService is being built (docs/aim.md,
// "Template selection"): the named one, or one selected among the model's templates. A model that reports
// it expects no template is served from its image. Once the InferenceService exists, running.ts looks at
// the template it was built from instead.
import type { ObjectReader } from '../../../engine/index.ts';
import type { AIMService } from '../shared/kinds.ts';
import type { TemplateObservation } from './catalog.ts';
import { fetchServiceTemplate } from './catalog-fetch.ts';
import type { ModelObject, ModelObservation } from './model.ts';

/** the component conditions a model reports its templates under */
const TEMPLATE_CONDITIONS = new Set(['ServiceTemplatesReady', 'ClusterServiceTemplatesReady']);

/** does the model report that it has no template to create (so it is served from its image)? */
export function modelExpectsNoTemplates(model: ModelObject): boolean {
  return (model.status?.conditions ?? []).some(
    (c) => TEMPLATE_CONDITIONS.has(c.type) && c.status === 'True' && c.reason === 'NoTemplatesExpected',
  );
}

export async function observeServiceTemplate(
  service: AIMService,
  reader: ObjectReader,
  model: ModelObservation,
): Promise<TemplateObservation> {
  const resolved = model.model?.ok() ? model.model.value : undefined;
  if (resolved)
    return fetchServiceTemplate(service, reader, resolved.metadata.name, !modelExpectsNoTemplates(resolved));
  if (service.spec.template?.name) return fetchServiceTemplate(service, reader, undefined);
  return { kind: 'none' };
}

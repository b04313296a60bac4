/**
 * Which template an AIMService's route path comes from: its own spec.routing.pathTemplate, else the runtime
 * config's, else `/<namespace>/<service-uid>`. An empty string counts as "not set" at every level.
 */
import { normalizeRoutePath } from './normalize.ts';
import { type PathTemplateError, renderPathTemplate } from './render.ts';

export const SERVICE_PATH_TEMPLATE_FIELD = 'spec.routing.pathTemplate';
export const RUNTIME_CONFIG_PATH_TEMPLATE_FIELD = 'runtimeConfig.spec.routing.pathTemplate';

export type RoutePathSource = 'Service' | 'RuntimeConfig' | 'Default';

export interface RoutedService {
  metadata: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string> };
  spec?: { routing?: { pathTemplate?: string } };
}

export type RoutePathResult =
  | { ok: true; path: string; source: RoutePathSource }
  | { ok: false; source: RoutePathSource; error: PathTemplateError };

export function resolveServiceRoutePath(service: RoutedService, runtimeConfigTemplate?: string): RoutePathResult {
  const own = service.spec?.routing?.pathTemplate;
  if (own) return withSource(renderPathTemplate(own, service, SERVICE_PATH_TEMPLATE_FIELD), 'Service');
  if (runtimeConfigTemplate) {
    return withSource(
      renderPathTemplate(runtimeConfigTemplate, service, RUNTIME_CONFIG_PATH_TEMPLATE_FIELD),
      'RuntimeConfig',
    );
  }
  const { namespace, uid } = service.metadata;
  if (!namespace || !uid) {
    return {
      ok: false,
      source: 'Default',
      error: {
        reason: 'PathTemplateInvalid',
        field: 'metadata',
        message: 'the default path /<namespace>/<uid> needs metadata.namespace and metadata.uid',
      },
    };
  }
  const normalized = normalizeRoutePath(`/${namespace}/${uid}`);
  if (!normalized.ok) {
    return {
      ok: false,
      source: 'Default',
      error: { reason: 'PathTemplateInvalid', field: 'metadata', message: normalized.message },
    };
  }
  return { ok: true, path: normalized.path, source: 'Default' };
}

function withSource(result: ReturnType<typeof renderPathTemplate>, source: RoutePathSource): RoutePathResult {
  return result.ok ? { ok: true, path: result.path, source } : { ok: false, source, error: result.error };
}

// spec.provider.overrides for Dynamo (docs/kubeairunway.md's "Dynamo overrides") translated into a partial
// DynamoGraphDeployment. `routerMode` is not a DGD field: the Frontend reads it from DYN_ROUTER_MODE.
// `frontend.replicas/resources` size the Frontend component; `spec` holds raw DGD spec fields (e.g.
// services.VllmWorker.multinode.nodeCount) and is merged last, so it can refine anything above.
// `epp` configures the endpoint-picker component of upstream's Gateway integration, which this provider
// does not build (there is no Epp service to apply it to): validation accepts it, the patch leaves it out.

import { isPlainObject, mergePatch } from '../common/index.ts';
import { FRONTEND_SERVICE, frontendEnv } from './transform.ts';

const FIELD = 'spec.provider.overrides';

function quantity(value: unknown, field: string): string {
  if ((typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)))
    return String(value);
  throw new Error(`${field}: must be a resource quantity such as "4" or "8Gi"`);
}

/** the documented Dynamo overrides as a partial DGD (the object the skeleton deep-merges over the transform) */
export function translateDynamoOverrides(overrides: unknown): Record<string, unknown> {
  if (overrides === undefined || overrides === null) return {};
  if (!isPlainObject(overrides)) throw new Error(`${FIELD}: must be an object`);
  const frontend: Record<string, unknown> = {};
  if (overrides.routerMode !== undefined) {
    if (typeof overrides.routerMode !== 'string')
      throw new Error(`${FIELD}.routerMode: must be one of "kv", "round-robin", "none"`);
    // the Frontend's only env entry is the router mode, so the whole list is the translation
    frontend.envs = frontendEnv(overrides.routerMode);
  }
  const fe = overrides.frontend;
  if (fe !== undefined) {
    if (!isPlainObject(fe)) throw new Error(`${FIELD}.frontend: must be an object`);
    if (fe.replicas !== undefined) {
      if (typeof fe.replicas !== 'number' || !Number.isInteger(fe.replicas) || fe.replicas < 0)
        throw new Error(`${FIELD}.frontend.replicas: must be an integer >= 0`);
      frontend.replicas = fe.replicas;
    }
    if (fe.resources !== undefined) {
      if (!isPlainObject(fe.resources)) throw new Error(`${FIELD}.frontend.resources: must be an object`);
      const requests: Record<string, string> = {};
      for (const key of ['cpu', 'memory'] as const) {
        if (fe.resources[key] !== undefined)
          requests[key] = quantity(fe.resources[key], `${FIELD}.frontend.resources.${key}`);
      }
      frontend.resources = { requests };
    }
  }
  const translated: Record<string, unknown> =
    Object.keys(frontend).length > 0 ? { spec: { services: { [FRONTEND_SERVICE]: frontend } } } : {};
  if (overrides.spec === undefined) return translated;
  if (!isPlainObject(overrides.spec)) throw new Error(`${FIELD}.spec: must be an object`);
  return mergePatch(translated, { spec: structuredClone(overrides.spec) });
}

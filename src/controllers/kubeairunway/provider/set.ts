// A provider as a controller set: `modelplane provider <name>` runs exactly one of these, and the RBAC it
// declares is the whole of what it may do (deploy/rbac and the RBAC tests are generated from it). No rule
// names Secrets: a provider passes secret references on and never reads one.

import { parseApiVersion } from '@modelplane/runtime/meta';
import {
  INFERENCE_PROVIDER_CONFIG_PLURAL,
  KAR_GROUP,
  MODEL_DEPLOYMENT_PLURAL,
} from '../../../apis/kubeairunway/index.ts';
import { type PolicyRule, READ, rule } from '../../rbac.ts';
import type { ControllerSet } from '../../registry.ts';
import { type ProviderControllerOptions, registerProviderController } from './controller.ts';
import type { ProviderDefinition } from './definition.ts';
import { providerControllerName } from './names.ts';

/** what one provider's process needs, besides events and its lease (added for every process) */
export function providerRules(
  def: Pick<
    ProviderDefinition,
    'upstream' | 'upstreamResource' | 'extraResources' | 'storage' | 'optionalObjects' | 'operatorSelector' | 'config'
  >,
): PolicyRule[] {
  const upstreamGroup = parseApiVersion(def.upstream.apiVersion).group;
  return [
    // read through the cache; patch adds and removes the finalizer (never replaced: no update)
    rule(KAR_GROUP, [MODEL_DEPLOYMENT_PLURAL], [...READ, 'patch']),
    rule(KAR_GROUP, [`${MODEL_DEPLOYMENT_PLURAL}/status`], ['patch']),
    // blockOwnerDeletion on the upstream object requires update on the owner's finalizers
    rule(KAR_GROUP, [`${MODEL_DEPLOYMENT_PLURAL}/finalizers`], ['update']),
    rule(upstreamGroup, [def.upstreamResource], [...READ, 'create', 'patch', 'delete']),
    // objects applied beside the upstream one (llm-d's Service): server-side apply, garbage-collected with the
    // deployment, deleted when the deployment moves to another provider
    ...(def.extraResources ?? []).map((r) => rule(r.group, [r.resource], [...READ, 'create', 'patch', 'delete'])),
    // spec.model.storage: the managed PVCs and the download Job (replaced on a retry), and the downloader's log
    ...(def.storage === false
      ? []
      : [
          rule('', ['persistentvolumeclaims'], [...READ, 'create', 'patch']),
          rule('batch', ['jobs'], [...READ, 'create', 'patch', 'delete']),
          rule('', ['pods'], ['list']),
          rule('', ['pods/log'], ['get']),
        ]),
    // objects of kinds that may not be served (llm-d's InferencePool): deleted when no longer wanted
    ...(def.optionalObjects ?? []).map((o) =>
      rule(o.resource.group, [o.resource.resource], [...READ, 'create', 'patch', 'delete']),
    ),
    // is the upstream kind's CRD there (watched by name, so its deletion is seen at once)?
    ...(def.config.capabilities?.requiresCRD === false
      ? []
      : [rule('apiextensions.k8s.io', ['customresourcedefinitions'], ['list', 'watch'])]),
    // is the upstream operator running (its Deployment, found by label)?
    ...(def.operatorSelector ? [rule('apps', ['deployments'], ['list', 'watch'])] : []),
    // registration: server-side apply creates it the first time, patches it after (never read back)
    rule(KAR_GROUP, [INFERENCE_PROVIDER_CONFIG_PLURAL], ['create', 'patch']),
    rule(KAR_GROUP, [`${INFERENCE_PROVIDER_CONFIG_PLURAL}/status`], ['patch']),
  ];
}

/** the controller set `provider-<name>` for one provider definition */
export function providerControllerSet(def: ProviderDefinition, opts: ProviderControllerOptions = {}): ControllerSet {
  return {
    name: providerControllerName(def.name),
    description: `The ${def.displayName} provider: builds a ${def.upstream.kind} (${def.upstream.apiVersion}) for each ModelDeployment assigned to "${def.name}" and reports its status back.`,
    register: (mgr, env) => registerProviderController(mgr, def, { log: env.log, ...opts }),
    rules: providerRules(def),
  };
}

// The runtime-config controllers: one skeleton, run once for AIMRuntimeConfig (namespaced) and once for
// AIMClusterRuntimeConfig (cluster). They create nothing; they validate the config and report it in its
// status (manual status on the engine), and watch Gateways so GatewayFound follows the Gateway's life.

import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KindRef, type KubeObject, objectKeyString } from '@modelplane/runtime/meta';
import {
  type DomainReconciler,
  type FetchResult,
  fetch,
  Pipeline,
  PlanResult,
  pipelineReconciler,
} from '../../../engine/index.ts';
import { type PolicyRule, READ, rule } from '../../rbac.ts';
import {
  type AIMClusterRuntimeConfig,
  AIMClusterRuntimeConfigs,
  type AIMRuntimeConfig,
  AIMRuntimeConfigs,
} from '../shared/kinds.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import { type GatewayCheck, Gateways, gatewayCheckFor, gatewayKey, type RuntimeConfigScope } from './gateway.ts';
import { type RuntimeConfigObservation, type RuntimeConfigStatus, setRuntimeConfigStatus } from './status.ts';
import { validateRuntimeConfigSpec } from './validate.ts';

export const RUNTIME_CONFIG_FIELD_MANAGER = 'aim-runtime-config-controller';
const GATEWAY_INDEX = 'aim.eai.amd.com/runtime-config-gateway';

/** what the two controllers read and write (status by server-side apply = PATCH) */
export const RUNTIME_CONFIG_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimruntimeconfigs', 'aimclusterruntimeconfigs'], READ),
  rule('aim.eai.amd.com', ['aimruntimeconfigs/status', 'aimclusterruntimeconfigs/status'], ['patch']),
  rule('gateway.networking.k8s.io', ['gateways'], READ),
];

type AnyRuntimeConfig = AIMRuntimeConfig | AIMClusterRuntimeConfig;

interface Fetched {
  gateway: GatewayCheck;
  lookup?: FetchResult<KubeObject>;
}

interface Variant {
  kind: KindRef<AnyRuntimeConfig>;
  scope: RuntimeConfigScope;
  controllerName: string;
}

const VARIANTS: readonly Variant[] = [
  { kind: AIMRuntimeConfigs, scope: 'Namespace', controllerName: 'aim-runtime-config' },
  { kind: AIMClusterRuntimeConfigs, scope: 'Cluster', controllerName: 'aim-cluster-runtime-config' },
];

function reconcilerFor(
  scope: RuntimeConfigScope,
): DomainReconciler<AnyRuntimeConfig, Fetched, Fetched, unknown, RuntimeConfigStatus> {
  return {
    async fetchRemoteState({ object, reader }) {
      const gateway = gatewayCheckFor(object.spec, scope, object.metadata.namespace);
      if (gateway.kind !== 'check') return { gateway };
      return { gateway, lookup: await fetch(reader, Gateways, gateway.name, gateway.namespace) };
    },
    // nothing is created from a config; its consumers read it
    planResources: () => new PlanResult(),
    // only a failed Gateway read counts here: it drives the engine's retry and DependenciesReachable
    getComponentHealth: (obs) => [
      obs.lookup &&
        !obs.lookup.ok() &&
        !obs.lookup.isNotFound() && { component: 'Gateway', errors: [obs.lookup.error] },
    ],
    setStatus(status, cm, obs, { object }) {
      const observation: RuntimeConfigObservation = {
        report: validateRuntimeConfigSpec(object.spec),
        gateway: obs.gateway,
      };
      if (obs.lookup)
        observation.lookup = obs.lookup.ok() ? 'found' : obs.lookup.isNotFound() ? 'missing' : 'unreadable';
      setRuntimeConfigStatus(status, cm, observation, object.metadata.generation);
    },
  };
}

export function runtimeConfigPipeline(
  scope: RuntimeConfigScope,
): Pipeline<AnyRuntimeConfig, Fetched, Fetched, unknown, RuntimeConfigStatus> {
  return new Pipeline({
    name: scope === 'Namespace' ? 'aim-runtime-config' : 'aim-cluster-runtime-config',
    reconciler: reconcilerFor(scope),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    statusField: null,
    observedGeneration: true,
  });
}

/** the Gateway a config checks, as an index value ([] when it checks none) */
function gatewayIndexValue(scope: RuntimeConfigScope) {
  return (o: KubeObject): string[] => {
    const check = gatewayCheckFor((o as AnyRuntimeConfig).spec, scope, o.metadata.namespace);
    return check.kind === 'check' ? [gatewayKey(check.namespace, check.name)] : [];
  };
}

/** Registers both runtime-config controllers (namespaced and cluster). `operatorNamespace` is not needed to validate. */
export async function registerAimRuntimeConfigControllers(
  mgr: Manager,
  _opts: { operatorNamespace: string },
): Promise<Controller[]> {
  const controllers: Controller[] = [];
  for (const v of VARIANTS) {
    await mgr.cache.indexField(v.kind, GATEWAY_INDEX, gatewayIndexValue(v.scope));
    const configs = await mgr.cache.informer(v.kind);
    const byGateway = (gw: KubeObject) =>
      configs.store
        .byIndex(GATEWAY_INDEX, gatewayKey(gw.metadata.namespace ?? '', gw.metadata.name ?? ''))
        .map((c) => objectKeyString(c.metadata.namespace, c.metadata.name ?? ''));
    controllers.push(
      mgr
        .controller(v.controllerName)
        .for(v.kind, { predicates: [ignoreOwnStatusWrites(RUNTIME_CONFIG_FIELD_MANAGER)] })
        .watches(Gateways, byGateway)
        .withOptions({ fieldManager: RUNTIME_CONFIG_FIELD_MANAGER, levelBased: true })
        .complete(pipelineReconciler(v.kind, runtimeConfigPipeline(v.scope))),
    );
  }
  return controllers;
}

// The gateway controller's reconciler on the engine (docs/controllers.md): fetch reads the served APIs, the
// Gateways, the deployment's route, its provider's InferenceProviderConfig and pool, all from the cache;
// compose decides (planGateway, pure); the plan applies or deletes the HTTPRoute; the manual status hook
// writes only status.gateway, status.endpoint.gatewayUrl and GatewayReady, as `kubeairunway-gateway`.

import { CustomResourceDefinitions } from '@modelplane/runtime/client';
import {
  CONDITION_GATEWAY_READY,
  type InferenceProviderConfig,
  InferenceProviderConfigs,
  type ModelDeployment,
} from '../../../apis/kubeairunway/index.ts';
import {
  asInfo,
  asWarning,
  type ComponentHealth,
  type ConditionManager,
  type DomainReconciler,
  type ObjectReader,
  PlanResult,
  quietWhenNew,
} from '../../../engine/index.ts';
import { servedGroupVersions } from '../served-apis.ts';
import {
  GATEWAY_API_VERSION,
  type Gateway,
  Gateways,
  type HTTPRoute,
  HTTPRoutes,
  INFERENCE_POOL_API_VERSION,
  type InferencePool,
  InferencePools,
} from './kinds.ts';
import { type GatewayInputs, type GatewayPlan, planGateway, providerPool, type Verdict } from './plan.ts';
import type { GatewayRef } from './select-gateway.ts';

export interface GatewayReconcilerOptions {
  /** route through this Gateway instead of discovering one */
  gateway?: GatewayRef;
}

type GatewayEngineStatus = Record<string, unknown>;

/** every read the decision needs; kinds the cluster does not serve are not touched */
export async function fetchGatewayInputs(
  md: ModelDeployment,
  reader: ObjectReader,
  configured?: GatewayRef,
): Promise<GatewayInputs> {
  const served = servedGroupVersions(await reader.list(CustomResourceDefinitions));
  const inputs: GatewayInputs = {
    served: { gatewayApi: served.has(GATEWAY_API_VERSION), inferencePool: served.has(INFERENCE_POOL_API_VERSION) },
    gateways: [],
    ...(configured ? { configured } : {}),
  };
  const enabled = md.spec.gateway?.enabled;
  if (enabled === false || !inputs.served.gatewayApi) {
    // only our route matters: it has to go
    if (inputs.served.gatewayApi) inputs.route = await routeNamed(reader, md, md.metadata.name ?? '');
    return inputs;
  }
  inputs.gateways = (await reader.list(Gateways)) as Gateway[];
  inputs.route = await routeNamed(reader, md, md.metadata.name ?? '');
  const ref = md.spec.gateway?.httpRouteRef;
  if (ref) inputs.referencedRoute = await routeNamed(reader, md, ref);
  const providerName = md.status?.provider?.name;
  if (providerName) {
    const provider = await reader.get(InferenceProviderConfigs, providerName);
    if (provider) inputs.provider = provider as InferenceProviderConfig;
    const pool = providerPool(md, inputs.provider);
    if (pool && inputs.served.inferencePool) {
      const found = await reader.get(InferencePools, pool.name, pool.namespace);
      if (found) inputs.pool = found as InferencePool;
    }
  }
  return inputs;
}

async function routeNamed(reader: ObjectReader, md: ModelDeployment, name: string): Promise<HTTPRoute | undefined> {
  return ((await reader.get(HTTPRoutes, name, md.metadata.namespace)) as HTTPRoute | undefined) ?? undefined;
}

function setVerdict(cm: ConditionManager, verdict: Verdict | undefined): void {
  if (!verdict) cm.delete(CONDITION_GATEWAY_READY);
  else if (verdict.status === 'True')
    cm.markTrue(CONDITION_GATEWAY_READY, verdict.reason, verdict.message, quietWhenNew());
  else if (verdict.status === 'Unknown') cm.markUnknown(CONDITION_GATEWAY_READY, verdict.reason, verdict.message);
  else
    cm.markFalse(
      CONDITION_GATEWAY_READY,
      verdict.reason,
      verdict.message,
      WAITING_REASONS.has(verdict.reason) ? asInfo() : asWarning(),
    );
}

/** states a route passes through on its way to Ready: reported once, as info, not as a warning */
const WAITING_REASONS = new Set([
  'DeploymentNotRunning',
  'EndpointPending',
  'InferencePoolPending',
  'HTTPRoutePending',
]);

export function gatewayReconciler(
  opts: GatewayReconcilerOptions = {},
): DomainReconciler<ModelDeployment, GatewayInputs, GatewayPlan, unknown, GatewayEngineStatus> {
  return {
    fetchRemoteState: ({ object, reader }) => fetchGatewayInputs(object, reader, opts.gateway),
    composeState: ({ object }, inputs) => planGateway(object, inputs),
    planResources(_ctx, plan) {
      const out = new PlanResult();
      if (plan.apply) out.apply(plan.apply);
      if (plan.delete)
        out.delete({
          apiVersion: GATEWAY_API_VERSION,
          kind: 'HTTPRoute',
          metadata: {
            name: plan.delete.name,
            namespace: plan.delete.namespace,
            ...(plan.delete.uid ? { uid: plan.delete.uid } : {}),
          },
        });
      return out;
    },
    // the route we apply is a downstream component: while the Gateway has not accepted it yet, the
    // engine's settle window holds the status back once, so a quick acceptance costs one status write
    getComponentHealth(plan): ComponentHealth[] {
      if (!plan.routePending) return [];
      return [
        {
          component: 'HTTPRoute',
          dependencyType: 'Downstream',
          state: plan.verdict?.status === 'True' ? 'Ready' : 'Progressing',
          reason: plan.verdict?.reason ?? 'HTTPRoutePending',
          message: plan.verdict?.message ?? '',
        },
      ];
    },
    setStatus(status, cm, plan) {
      setVerdict(cm, plan.verdict);
      for (const key of Object.keys(status)) delete status[key];
      if (plan.status.gateway) status.gateway = { ...plan.status.gateway };
      if (plan.status.endpoint) status.endpoint = { ...plan.status.endpoint };
      const condition = cm.get(CONDITION_GATEWAY_READY);
      if (condition) status.conditions = [condition];
    },
  };
}

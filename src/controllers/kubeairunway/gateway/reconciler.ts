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
  ModelDeployments,
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
import type { Claim, RouteClaims } from './ownership.ts';
import { type GatewayInputs, type GatewayPlan, planGateway, providerPool, type Verdict } from './plan.ts';
import { type RouteBackend, routedModelName } from './route.ts';
import type { GatewayRef } from './select-gateway.ts';

export interface GatewayReconcilerOptions {
  /** route through this Gateway instead of discovering one */
  gateway?: GatewayRef;
  /** the deployments answering to a model name (the controller's index); default: a list from the reader */
  claimantsOf?: (modelName: string) => ModelDeployment[];
  /** which deployment this controller routed for each name (ownership.ts); default: statuses only */
  claims?: RouteClaims;
}

type GatewayEngineStatus = Record<string, unknown>;

/** every read the decision needs; kinds the cluster does not serve are not touched */
export async function fetchGatewayInputs(
  md: ModelDeployment,
  reader: ObjectReader,
  configured?: GatewayRef,
  claimantsOf?: (modelName: string) => ModelDeployment[],
): Promise<GatewayInputs> {
  const served = servedGroupVersions(await reader.list(CustomResourceDefinitions));
  const inputs: GatewayInputs = {
    served: { gatewayApi: served.has(GATEWAY_API_VERSION), inferencePool: served.has(INFERENCE_POOL_API_VERSION) },
    gateways: [],
    readyPods: 0,
    peers: [],
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
  inputs.readyPods = readyPodsOf(md);
  const modelName = routedModelName(md);
  const others = (
    claimantsOf
      ? claimantsOf(modelName)
      : ((await reader.list(ModelDeployments)) as ModelDeployment[]).filter((o) => routedModelName(o) === modelName)
  ).filter((o) => o.metadata.uid !== md.metadata.uid);
  const peers: Claim[] = [];
  const backends = new Map<string, RouteBackend>();
  for (const other of others) {
    peers.push({ md: other, readyPods: readyPodsOf(other) });
    const backend = md.spec.gateway?.weight !== undefined ? await sharerBackend(other, md, inputs, reader) : undefined;
    if (backend) backends.set(other.metadata.uid ?? '', backend);
  }
  inputs.peers = peers;
  if (backends.size > 0) inputs.peerBackends = backends;
  return inputs;
}

/**
 * the deployment's ready pods, as its provider reports them from the upstream resource it watches
 * (status.replicas.ready; docs/kubeairunway.md, "Gateway"): no cache of every Endpoints object of the cluster
 */
function readyPodsOf(md: ModelDeployment): number {
  return md.status?.endpoint?.service ? (md.status.replicas?.ready ?? 0) : 0;
}

/** a weighted sharer's backend in `md`'s route: its provider's pool, else its Service */
async function sharerBackend(
  other: ModelDeployment,
  md: ModelDeployment,
  inputs: GatewayInputs,
  reader: ObjectReader,
): Promise<RouteBackend | undefined> {
  if (other.spec.gateway?.weight === undefined || other.metadata.namespace !== md.metadata.namespace) return undefined;
  const providerName = other.status?.provider?.name;
  const provider = providerName
    ? ((await reader.get(InferenceProviderConfigs, providerName)) as InferenceProviderConfig | undefined)
    : undefined;
  const pool = providerPool(other, provider);
  if (pool && inputs.served.inferencePool && (await reader.get(InferencePools, pool.name, pool.namespace)))
    return { kind: 'InferencePool', ...pool };
  const endpoint = other.status?.endpoint;
  return endpoint?.service && endpoint.port
    ? { kind: 'Service', name: endpoint.service, port: endpoint.port }
    : undefined;
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
    fetchRemoteState: ({ object, reader }) => fetchGatewayInputs(object, reader, opts.gateway, opts.claimantsOf),
    composeState: ({ object }, inputs) => {
      const claims = opts.claims;
      if (!claims) return planGateway(object, inputs);
      // read and recorded in one synchronous step: no other reconcile decides in between
      const plan = planGateway(object, { ...inputs, routedBy: (g, name) => claims.holder(g, name) });
      claims.record(object.metadata.uid ?? '', plan.claim);
      return plan;
    },
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

// The gateway controller's decision for one ModelDeployment, pure (docs/kubeairunway.md, "Gateway"): whether
// it is routed through the shared Gateway, the HTTPRoute to apply or delete, the status fields the gateway
// controller owns (status.gateway, status.endpoint.gatewayUrl) and the GatewayReady verdict with a message
// that says what to do. `undefined` verdict: the gateway does not apply to this deployment (not enabled and
// nothing to route through), and the controller owns nothing on it.

import { controllerOf, type KubeObject } from '@modelplane/runtime/meta';
import type { InferenceProviderConfig, ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import { categorize, httpRouteHealth } from '../../../engine/index.ts';
import type { Gateway, HTTPRoute, InferencePool } from './kinds.ts';
import { buildRoute, expandPattern, gatewayEndpoint, type RouteBackend, routedModelName } from './route.ts';
import { type GatewayRef, selectGateway } from './select-gateway.ts';

export interface GatewayInputs {
  /** which of the APIs the cluster serves */
  served: { gatewayApi: boolean; inferencePool: boolean };
  gateways: readonly Gateway[];
  /** the Gateway the operator was told to use (--gateway-namespace/--gateway-name) */
  configured?: GatewayRef;
  /** the InferenceProviderConfig of status.provider.name */
  provider?: InferenceProviderConfig;
  /** the HTTPRoute named like the deployment (ours, or someone else's) */
  route?: HTTPRoute;
  /** the user's HTTPRoute named by spec.gateway.httpRouteRef */
  referencedRoute?: HTTPRoute;
  /** the provider's InferencePool, when its capabilities say it manages one */
  pool?: InferencePool;
}

export type Verdict = { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };

export interface GatewayStatus {
  gateway?: { endpoint?: string; modelName: string; gatewayNamespace: string };
  endpoint?: { gatewayUrl: string };
}

export interface GatewayPlan {
  apply?: KubeObject;
  /** our route, to delete (exactly that object: its uid) */
  delete?: { name: string; namespace: string; uid?: string };
  status: GatewayStatus;
  verdict?: Verdict;
  /** the route is ours and was just planned: its acceptance is still coming (drives the settle window) */
  routePending: boolean;
}

const DEFAULT_POOL_PATTERN = '{name}-pool';
const where = (o: { metadata: { namespace?: string; name?: string } }) =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** the pool a provider that manages InferencePools creates for `md`, or undefined */
export function providerPool(
  md: ModelDeployment,
  provider: InferenceProviderConfig | undefined,
): { name: string; namespace: string } | undefined {
  const gw = provider?.spec.capabilities?.gateway;
  if (!gw?.managesInferencePool) return undefined;
  return {
    name: expandPattern(gw.inferencePoolNamePattern || DEFAULT_POOL_PATTERN, md),
    namespace: expandPattern(gw.inferencePoolNamespace || '{namespace}', md),
  };
}

function ownRoute(md: ModelDeployment, route: HTTPRoute | undefined): HTTPRoute | undefined {
  return route && controllerOf(route)?.uid === md.metadata.uid ? route : undefined;
}

/** not routed: our route (if any) goes, and the status says why (no verdict: not applicable) */
function unrouted(md: ModelDeployment, inputs: GatewayInputs, verdict?: Verdict): GatewayPlan {
  const ours = ownRoute(md, inputs.route);
  const plan: GatewayPlan = { status: {}, routePending: false, ...(verdict ? { verdict } : {}) };
  if (ours)
    plan.delete = {
      name: ours.metadata.name ?? '',
      namespace: ours.metadata.namespace ?? '',
      ...(ours.metadata.uid ? { uid: ours.metadata.uid } : {}),
    };
  return plan;
}

export function planGateway(md: ModelDeployment, inputs: GatewayInputs): GatewayPlan {
  const enabled = md.spec.gateway?.enabled;
  const name = `ModelDeployment ${where(md)}`;
  if (enabled === false)
    return unrouted(md, inputs, {
      status: 'False',
      reason: 'GatewayDisabled',
      message: `${name}: spec.gateway.enabled is false, so it is not routed through a Gateway (set it to true to route it)`,
    });
  // nothing to route through: an explicit request says why, an unset one is simply not routed
  const unavailable = (reason: string, why: string) =>
    unrouted(
      md,
      inputs,
      enabled ? { status: 'False', reason, message: `${name}: spec.gateway.enabled is true but ${why}` } : undefined,
    );
  if (!inputs.served.gatewayApi)
    return unavailable(
      'CRDsNotAvailable',
      'the cluster does not serve the Gateway API (gateway.networking.k8s.io/v1 Gateway, HTTPRoute): install its CRDs and a Gateway implementation, or set spec.gateway.enabled to false',
    );
  const choice = selectGateway(inputs.gateways, inputs.configured);
  if (!choice.gateway) return unavailable('NoGateway', choice.message);
  return planRouted(md, inputs, choice.gateway);
}

function planRouted(md: ModelDeployment, inputs: GatewayInputs, gateway: Gateway): GatewayPlan {
  const name = `ModelDeployment ${where(md)}`;
  const modelName = routedModelName(md);
  const phase = md.status?.phase ?? 'Pending';
  if (phase !== 'Running')
    return unrouted(md, inputs, {
      status: 'False',
      reason: 'DeploymentNotRunning',
      message: `${name} is ${phase}: its route on Gateway ${where(gateway)} is created once it is Running`,
    });
  const ref = md.spec.gateway?.httpRouteRef;
  if (ref) return planReferencedRoute(md, inputs, gateway, ref, modelName);
  if (inputs.route && !ownRoute(md, inputs.route))
    return unrouted(md, inputs, {
      status: 'False',
      reason: 'HTTPRouteConflict',
      message: `HTTPRoute ${where(inputs.route)} exists and is not managed by ${name}: delete or rename it, or name it in spec.gateway.httpRouteRef to route with it`,
    });
  const backend = backendFor(md, inputs);
  if ('verdict' in backend) return unrouted(md, inputs, backend.verdict);
  const desired = buildRoute(md, gateway, backend, modelName);
  const plan: GatewayPlan = {
    apply: desired,
    status: {},
    routePending: true,
    verdict: routeVerdict(inputs.route, gateway, modelName),
  };
  fillStatus(plan, gateway, modelName);
  return plan;
}

function backendFor(md: ModelDeployment, inputs: GatewayInputs): RouteBackend | { verdict: Verdict } {
  const name = `ModelDeployment ${where(md)}`;
  const pool = providerPool(md, inputs.provider);
  if (pool) {
    const what = `InferencePool ${pool.namespace}/${pool.name}`;
    if (!inputs.served.inferencePool)
      return {
        verdict: {
          status: 'False',
          reason: 'CRDsNotAvailable',
          message: `${name}: its provider routes through an ${what}, but the cluster does not serve inference.networking.k8s.io/v1 InferencePool: install the Gateway API Inference Extension CRDs, or set spec.gateway.enabled to false`,
        },
      };
    if (!inputs.pool)
      return {
        verdict: {
          status: 'Unknown',
          reason: 'InferencePoolPending',
          message: `${name}: waiting for provider ${md.status?.provider?.name ?? ''} to create ${what}`,
        },
      };
    return { kind: 'InferencePool', ...pool };
  }
  const endpoint = md.status?.endpoint;
  if (!endpoint?.service || !endpoint.port)
    return {
      verdict: {
        status: 'Unknown',
        reason: 'EndpointPending',
        message: `${name}: waiting for provider ${md.status?.provider?.name ?? ''} to report status.endpoint (the Service to route to)`,
      },
    };
  return { kind: 'Service', name: endpoint.service, port: endpoint.port };
}

function planReferencedRoute(
  md: ModelDeployment,
  inputs: GatewayInputs,
  gateway: Gateway,
  ref: string,
  modelName: string,
): GatewayPlan {
  const plan = unrouted(md, inputs);
  if (!inputs.referencedRoute) {
    plan.verdict = {
      status: 'False',
      reason: 'HTTPRouteNotFound',
      message: `ModelDeployment ${where(md)}: spec.gateway.httpRouteRef names HTTPRoute ${md.metadata.namespace}/${ref}, which does not exist: create it, or remove httpRouteRef to have one created`,
    };
    return plan;
  }
  plan.verdict = routeVerdict(inputs.referencedRoute, gateway, modelName);
  fillStatus(plan, gateway, modelName);
  return plan;
}

function fillStatus(plan: GatewayPlan, gateway: Gateway, modelName: string): void {
  const endpoint = gatewayEndpoint(gateway);
  plan.status.gateway = {
    ...(endpoint ? { endpoint } : {}),
    modelName,
    gatewayNamespace: gateway.metadata.namespace ?? '',
  };
  if (endpoint && plan.verdict?.status === 'True') plan.status.endpoint = { gatewayUrl: `http://${endpoint}` };
}

/** GatewayReady from the route's acceptance and the Gateway's address */
export function routeVerdict(route: HTTPRoute | undefined, gateway: Gateway, modelName: string): Verdict {
  const gw = `Gateway ${where(gateway)}`;
  if (!route) return { status: 'Unknown', reason: 'HTTPRoutePending', message: `creating the HTTPRoute on ${gw}` };
  const health = httpRouteHealth(route);
  const error = health.errors?.[0] === undefined ? undefined : categorize(health.errors[0]);
  if (error) {
    const fix =
      error.category === 'InvalidSpec'
        ? `: change ${gw}'s listeners (allowedRoutes, hostname) to admit routes from namespace ${route.metadata.namespace}, or route through another Gateway`
        : '';
    return { status: 'False', reason: error.reason, message: `${error.message}${fix}` };
  }
  if (health.state !== 'Ready')
    return {
      status: 'Unknown',
      reason: 'HTTPRoutePending',
      message: `HTTPRoute ${where(route)} is waiting for ${gw} to accept it`,
    };
  const endpoint = gatewayEndpoint(gateway);
  if (!endpoint)
    return {
      status: 'False',
      reason: 'GatewayNotProgrammed',
      message: `HTTPRoute ${where(route)} is accepted, but ${gw} has no address yet: check the Gateway's Programmed condition and its implementation`,
    };
  return {
    status: 'True',
    reason: 'HTTPRouteAccepted',
    message: `HTTPRoute ${where(route)} is accepted by ${gw}: POST http://${endpoint}/v1/chat/completions with "model": "${modelName}"`,
  };
}

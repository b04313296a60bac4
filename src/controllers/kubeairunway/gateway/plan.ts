// The gateway controller's decision for one ModelDeployment, pure (docs/kubeairunway.md, "Gateway"): whether
// it is routed through the shared Gateway, the HTTPRoute to apply or delete, the status fields the gateway
// controller owns (status.gateway, status.endpoint.gatewayUrl) and the GatewayReady verdict with a message
// that says what to do. `undefined` verdict: the gateway does not apply to this deployment (not enabled and
// nothing to route through), and the controller owns nothing on it.

import { controllerOf, type KubeObject } from '@modelplane/runtime/meta';
import type { InferenceProviderConfig, ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import { categorize } from '../../../engine/errors.ts';
import { httpRouteHealth } from '../../../engine/inspectors/workloads.ts';
import type { Gateway, HTTPRoute, InferencePool } from './kinds.ts';
import { type Claim, conflictMessage, holds, nameOwnership } from './ownership.ts';
import {
  buildRoute,
  expandPattern,
  gatewayEndpoint,
  type RouteBackend,
  routedModelName,
  type WeightedBackend,
} from './route.ts';
import { type GatewayChoice, type GatewayRef, selectGateway } from './select-gateway.ts';

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
  /** ready pods behind the deployment's Service (status.endpoint.service): a route follows serving */
  readyPods: number;
  /** the other deployments answering to the same model name, with their ready pods (any namespace) */
  peers: readonly Claim[];
  /** the backends of sharers (spec.gateway.weight), by deployment uid: their pool or Service */
  peerBackends?: ReadonlyMap<string, RouteBackend>;
  /** the uid this controller last routed for a model name on a Gateway (ns/name), read when deciding */
  routedBy?: (gateway: string, modelName: string) => string | undefined;
}

export type Verdict = { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };

export interface GatewayStatus {
  /**
   * the Gateway it is routed through (with the model name), or, without a model name, the one it was judged on
   * without being routed (a conflict, no ready pod yet): either way it is never moved to an unlabelled Gateway
   */
  gateway?: { endpoint?: string; modelName?: string; gatewayNamespace: string; gatewayName: string };
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
  /** the model name it is routed for, and through which Gateway (ns/name): it owns the name there */
  claim?: { gateway: string; modelName: string };
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

/** status.gateway for a Gateway `md` is judged on: with `modelName` only when it holds that name there */
function judgedOn(gateway: Gateway, modelName?: string): NonNullable<GatewayStatus['gateway']> {
  return {
    ...(modelName !== undefined ? { modelName } : {}),
    gatewayNamespace: gateway.metadata.namespace ?? '',
    gatewayName: gateway.metadata.name ?? '',
  };
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
  const choice = gatewayFor(md, inputs);
  if (!choice.gateway) {
    // an explicit or a lost Gateway is always reported; discovery finding none is reported when asked for
    if (choice.reason === 'GatewayNotFound') {
      const plan = unrouted(md, inputs, {
        status: 'False',
        reason: choice.reason,
        message: `${name}: ${choice.message}`,
      });
      // remember the Gateway it was routed through, so the route is not moved on the next reconcile
      const g = md.status?.gateway;
      if (g?.gatewayName && !md.spec.gateway?.gatewayRef)
        plan.status.gateway = {
          // its claim on the name stays while it still answers to it (ownership.ts)
          ...(g.modelName && g.modelName === routedModelName(md) ? { modelName: g.modelName } : {}),
          gatewayNamespace: g.gatewayNamespace ?? '',
          gatewayName: g.gatewayName,
        };
      return plan;
    }
    return unavailable(choice.reason, choice.message);
  }
  return planRouted(md, inputs, choice.gateway);
}

/** the Gateway `md` is routed through: its gatewayRef, the configured one, or discovery (select-gateway.ts) */
export function gatewayFor(md: ModelDeployment, inputs: Pick<GatewayInputs, 'gateways' | 'configured'>): GatewayChoice {
  const ref = md.spec.gateway?.gatewayRef;
  const g = md.status?.gateway;
  return selectGateway(inputs.gateways, {
    ...(ref ? { ref: { name: ref.name, namespace: ref.namespace || (md.metadata.namespace ?? '') } } : {}),
    ...(inputs.configured ? { configured: inputs.configured } : {}),
    ...(g?.gatewayName
      ? { previous: { namespace: g.gatewayNamespace ?? '', name: g.gatewayName, routed: Boolean(g.modelName) } }
      : {}),
  });
}

function planRouted(md: ModelDeployment, inputs: GatewayInputs, gateway: Gateway): GatewayPlan {
  const name = `ModelDeployment ${where(md)}`;
  const modelName = routedModelName(md);
  // a route follows serving, not the phase: a deployment held at Pending by a rejected edit (the webhook
  // was down) still serves from its last valid spec, and keeps its route while a pod is ready
  const notServing = servingVerdict(md, inputs.readyPods, gateway);
  if (notServing) {
    const plan = unrouted(md, inputs, notServing);
    // an owner without a ready pod keeps its claim on the name (ownership.ts), without an endpoint; any
    // other keeps only the Gateway it was judged on
    plan.status.gateway = judgedOn(gateway, holds(md, modelName, where(gateway)) ? modelName : undefined);
    return plan;
  }
  const ref = md.spec.gateway?.httpRouteRef;
  if (ref) return planReferencedRoute(md, inputs, gateway, ref, modelName);
  if (inputs.route && !ownRoute(md, inputs.route))
    return unrouted(md, inputs, {
      status: 'False',
      reason: 'HTTPRouteConflict',
      message: `HTTPRoute ${where(inputs.route)} exists and is not managed by ${name}: delete or rename it, or name it in spec.gateway.httpRouteRef to route with it`,
    });
  const owner = nameOwnership(
    { md, readyPods: inputs.readyPods },
    claimantsOn(gateway, inputs),
    modelName,
    where(gateway),
    inputs.routedBy?.(where(gateway), modelName),
  );
  if (owner.role === 'conflict') {
    const plan = unrouted(md, inputs, {
      status: 'False',
      reason: 'ModelNameConflict',
      message: conflictMessage(md, owner.owner, modelName, where(gateway)),
    });
    // no claim on the name, but the Gateway it was judged on: when that one goes, it is not routed
    // through an unlabelled one in its place (select-gateway.ts)
    plan.status.gateway = judgedOn(gateway);
    return plan;
  }
  if (owner.role === 'sharer') {
    const plan = unrouted(md, inputs, {
      status: 'True',
      reason: 'ModelNameShared',
      message: `${name} serves model name "${modelName}" with weight ${md.spec.gateway?.weight} through HTTPRoute ${where(owner.owner)} on Gateway ${where(gateway)}, beside the deployments that set spec.gateway.weight`,
    });
    fillStatus(plan, gateway, modelName);
    return plan;
  }
  const backend = backendFor(md, inputs);
  if ('verdict' in backend) return unrouted(md, inputs, backend.verdict);
  const backends: WeightedBackend[] = [{ backend, ...weightOf(md) }];
  for (const s of owner.sharers) {
    const b = inputs.peerBackends?.get(s.md.metadata.uid ?? '');
    if (b) backends.push({ backend: b, ...weightOf(s.md) });
  }
  const desired = buildRoute(md, gateway, backends, modelName);
  const plan: GatewayPlan = {
    apply: desired,
    status: {},
    routePending: true,
    verdict: routeVerdict(inputs.route, gateway, modelName),
    claim: { gateway: where(gateway), modelName },
  };
  fillStatus(plan, gateway, modelName);
  return plan;
}

const weightOf = (md: ModelDeployment) =>
  md.spec.gateway?.weight !== undefined ? { weight: md.spec.gateway.weight } : {};

/** why `md` is not routed now (no ready pod), or undefined when it serves */
function servingVerdict(md: ModelDeployment, readyPods: number, gateway: Gateway): Verdict | undefined {
  // scaled to zero on purpose: the route stays, so a Gateway that scales from zero can hold its requests
  // until a pod is ready (docs/autoscaling.md, "Scale from zero")
  if (readyPods > 0 || (md.status?.phase === 'Running' && md.status?.replicas?.desired === 0)) return undefined;
  const name = `ModelDeployment ${where(md)}`;
  const phase = md.status?.phase ?? 'Pending';
  const service = md.status?.endpoint?.service;
  if (phase !== 'Running')
    return {
      status: 'False',
      reason: 'DeploymentNotRunning',
      message: `${name} is ${phase} and has no ready pod${service ? ` behind Service ${md.metadata.namespace}/${service}` : ''}: its route on Gateway ${where(gateway)} is created once one is ready`,
    };
  if (!service)
    return {
      status: 'Unknown',
      reason: 'EndpointPending',
      message: `${name}: waiting for provider ${md.status?.provider?.name ?? ''} to report status.endpoint (the Service to route to)`,
    };
  return {
    status: 'False',
    reason: 'NoReadyPods',
    message: `${name} is Running but Service ${md.metadata.namespace}/${service} has no ready pod: its route on Gateway ${where(gateway)} is withdrawn until one is ready (check the pods: kubectl get pods -n ${md.metadata.namespace})`,
  };
}

/** the other deployments that claim a name on `gateway` and could serve it now */
function claimantsOn(gateway: Gateway, inputs: GatewayInputs): Claim[] {
  return inputs.peers.filter(
    (p) =>
      p.readyPods > 0 &&
      !p.md.metadata.deletionTimestamp &&
      p.md.spec.gateway?.enabled !== false &&
      !p.md.spec.gateway?.httpRouteRef &&
      gatewayFor(p.md, inputs).gateway === gateway,
  );
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
    gatewayName: gateway.metadata.name ?? '',
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

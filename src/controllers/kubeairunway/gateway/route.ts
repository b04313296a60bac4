// The HTTPRoute a ModelDeployment gets on the shared Gateway, pure (docs/kubeairunway.md, "Gateway"):
// named like the deployment, every path (prefix `/`) of requests whose X-Gateway-Model-Name header (set by
// the gateway's body-based router from the request body's `model`) is the deployment's model name, to the
// provider's InferencePool or, for providers without one, to the Service status.endpoint names.

/** the header a body-based router sets from the request body's `model` */
import { MODEL_NAME_HEADER } from '@modelplane/apimachinery/wellknown';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MODEL_DEPLOYMENT_LABEL,
  type ModelDeployment,
} from '../../../apis/kubeairunway/index.ts';
import { sanitizeLabelValue } from '../providers/common/index.ts';
import { GATEWAY_API_GROUP, GATEWAY_API_VERSION, type Gateway, INFERENCE_POOL_GROUP } from './kinds.ts';

export { MODEL_NAME_HEADER };
/** generation can be slow: the route allows a request this long (the public project's value) */
export const ROUTE_REQUEST_TIMEOUT = '300s';

export type RouteBackend =
  | { kind: 'Service'; name: string; port: number }
  | { kind: 'InferencePool'; name: string; namespace: string };

/** a backend and its share of the traffic (weights only when deployments share a model name) */
export interface WeightedBackend {
  backend: RouteBackend;
  weight?: number;
}

/** the name requests carry: spec.gateway.modelName, else model.servedName, else model.id */
export function routedModelName(md: Pick<ModelDeployment, 'spec' | 'metadata'>): string {
  const spec = md.spec;
  return spec.gateway?.modelName || spec.model?.servedName || spec.model?.id || (md.metadata.name ?? '');
}

/** `{name}` and `{namespace}` replaced by the deployment's */
export function expandPattern(pattern: string, md: Pick<ModelDeployment, 'metadata'>): string {
  return pattern.replaceAll('{name}', md.metadata.name ?? '').replaceAll('{namespace}', md.metadata.namespace ?? '');
}

function backendRef({ backend, weight }: WeightedBackend, routeNamespace: string): Record<string, unknown> {
  const w = weight !== undefined ? { weight } : {};
  if (backend.kind === 'Service') return { group: '', kind: 'Service', name: backend.name, port: backend.port, ...w };
  return {
    group: INFERENCE_POOL_GROUP,
    kind: 'InferencePool',
    name: backend.name,
    ...(backend.namespace !== routeNamespace ? { namespace: backend.namespace } : {}),
    ...w,
  };
}

export function buildRoute(
  md: ModelDeployment,
  gateway: Gateway,
  backends: RouteBackend | readonly WeightedBackend[],
  modelName: string,
): KubeObject {
  const list = Array.isArray(backends) ? backends : [{ backend: backends as RouteBackend }];
  const namespace = md.metadata.namespace ?? '';
  return {
    apiVersion: GATEWAY_API_VERSION,
    kind: 'HTTPRoute',
    metadata: {
      name: md.metadata.name,
      namespace,
      labels: {
        [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
        [MODEL_DEPLOYMENT_LABEL]: sanitizeLabelValue(md.metadata.name ?? ''),
      },
    },
    spec: {
      parentRefs: [
        {
          group: GATEWAY_API_GROUP,
          kind: 'Gateway',
          name: gateway.metadata.name,
          namespace: gateway.metadata.namespace,
        },
      ],
      rules: [
        {
          matches: [
            {
              path: { type: 'PathPrefix', value: '/' },
              headers: [{ type: 'Exact', name: MODEL_NAME_HEADER, value: modelName }],
            },
          ],
          backendRefs: list.map((b) => backendRef(b, namespace)),
          timeouts: { request: ROUTE_REQUEST_TIMEOUT },
        },
      ],
    },
  };
}

/**
 * Where clients reach the Gateway: its first status address, with the port of its first HTTP listener
 * unless that is 80; an implementation-specific address that already carries a port is used as it is.
 * Undefined while the Gateway has no address (not programmed yet).
 */
export function gatewayEndpoint(gateway: Gateway): string | undefined {
  const address = gateway.status?.addresses?.find((a) => a.value);
  if (!address) return undefined;
  const type = address.type ?? 'IPAddress';
  if (type !== 'IPAddress' && type !== 'Hostname') return address.value;
  const listener = gateway.spec?.listeners?.find((l) => l.protocol === 'HTTP') ?? gateway.spec?.listeners?.[0];
  const port = listener?.port ?? 80;
  const host = address.value.includes(':') && type === 'IPAddress' ? `[${address.value}]` : address.value;
  return port === 80 ? host : `${host}:${port}`;
}

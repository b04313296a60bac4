// The route of an AIMService (docs/aim.md, "Routing"): whether routing is on, the rendered path, and the
// HTTPRoute that sends `<path>/*` on the configured gateway to the predictor Service with the prefix
// rewritten to `/`. Pure. A problem that only the user can fix (bad template, no gateway, bad timeout)
// comes back as data naming the field; the caller reports it without touching the InferenceService.

import type { KubeObject } from '@modelplane/runtime/meta';
import { resolveServiceRoutePath } from '../../../common/path-template/index.ts';
import type { GatewayParentRef, RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';
import type { AIMService } from '../shared/kinds.ts';
import { GATEWAY_API_GROUP } from './children.ts';
import {
  COMPONENT_LABEL,
  httpRouteName,
  labelValueFor,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  PREDICTOR_SERVICE_PORT,
  predictorServiceName,
  SERVICE_LABEL,
} from './names.ts';

export type RoutingPlan =
  | { kind: 'disabled'; field: string }
  | {
      kind: 'route';
      route: KubeObject;
      path: string;
      source: string;
      gatewayRef: GatewayParentRef;
      gatewayField: string;
    }
  | {
      kind: 'invalid';
      reason: 'PathTemplateInvalid' | 'GatewayNotConfigured' | 'InvalidRequestTimeout';
      field: string;
      message: string;
    };

export interface RoutingInput {
  service: AIMService;
  /** the resolved runtime config (cluster ⊕ namespace), without the service's inline values */
  runtimeConfig: RuntimeConfigSpec;
  /** how to name the runtime config in messages, e.g. `AIMRuntimeConfig ml-team/default` */
  runtimeConfigName: string;
  /** the merged config with the service's inline values on top */
  effective: RuntimeConfigSpec;
  isvcName: string;
}

// Gateway API's Duration (GEP-2257): 1 to 4 number+unit pairs, units h, m, s, ms.
const GATEWAY_DURATION = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;

/** where a routing field's value came from: the service's own spec, or the runtime config */
function fieldOf(input: RoutingInput, key: 'enabled' | 'gatewayRef' | 'pathTemplate' | 'requestTimeout'): string {
  const own = input.service.spec.routing?.[key];
  return own !== undefined && own !== null
    ? `spec.routing.${key}`
    : `spec.routing.${key} of ${input.runtimeConfigName}`;
}

export function planRouting(input: RoutingInput): RoutingPlan {
  const routing = input.effective.routing ?? {};
  if (routing.enabled !== true) return { kind: 'disabled', field: fieldOf(input, 'enabled') };
  const gatewayRef = routing.gatewayRef;
  if (!gatewayRef?.name) {
    return {
      kind: 'invalid',
      reason: 'GatewayNotConfigured',
      field: 'spec.routing.gatewayRef',
      message: `routing is enabled (${fieldOf(input, 'enabled')}) but neither the service's spec.routing.gatewayRef nor ${input.runtimeConfigName} names a gateway`,
    };
  }
  const timeout = routing.requestTimeout;
  if (timeout !== undefined && !GATEWAY_DURATION.test(timeout)) {
    const field = fieldOf(input, 'requestTimeout');
    return {
      kind: 'invalid',
      reason: 'InvalidRequestTimeout',
      field,
      message: `${field}: ${JSON.stringify(timeout)} is not a Gateway API duration (1 to 4 groups of up to 5 digits with unit h, m, s or ms, e.g. "90s" or "1m30s")`,
    };
  }
  const rendered = resolveServiceRoutePath(input.service, input.runtimeConfig.routing?.pathTemplate);
  if (!rendered.ok) {
    const field =
      rendered.source === 'RuntimeConfig'
        ? `spec.routing.pathTemplate of ${input.runtimeConfigName}`
        : rendered.error.field;
    return { kind: 'invalid', reason: 'PathTemplateInvalid', field, message: `${field}: ${rendered.error.message}` };
  }
  const source =
    rendered.source === 'Service'
      ? 'spec.routing.pathTemplate'
      : rendered.source === 'RuntimeConfig'
        ? `the path template of ${input.runtimeConfigName}`
        : 'the default /<namespace>/<uid>';
  return {
    kind: 'route',
    route: buildHTTPRoute(input.service, input.isvcName, rendered.path, gatewayRef, timeout, routing.annotations),
    path: rendered.path,
    source,
    gatewayRef,
    gatewayField: fieldOf(input, 'gatewayRef'),
  };
}

export function buildHTTPRoute(
  service: AIMService,
  isvcName: string,
  path: string,
  gatewayRef: GatewayParentRef,
  requestTimeout: string | undefined,
  annotations: Record<string, string> | undefined,
): KubeObject {
  const name = service.metadata.name ?? '';
  const hasAnnotations = annotations && Object.keys(annotations).length > 0;
  return {
    apiVersion: `${GATEWAY_API_GROUP}/v1`,
    kind: 'HTTPRoute',
    metadata: {
      name: httpRouteName(name),
      namespace: service.metadata.namespace ?? '',
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [COMPONENT_LABEL]: 'routing', [SERVICE_LABEL]: labelValueFor(name) },
      ...(hasAnnotations ? { annotations: { ...annotations } } : {}),
    },
    spec: {
      // the API server defaults group and kind; spelling them out keeps a resync from seeing a difference
      parentRefs: [{ group: GATEWAY_API_GROUP, kind: 'Gateway', ...structuredClone(gatewayRef) }],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: path } }],
          filters: [
            { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } },
          ],
          backendRefs: [
            {
              group: '',
              kind: 'Service',
              name: predictorServiceName(isvcName),
              port: PREDICTOR_SERVICE_PORT,
              weight: 1,
            },
          ],
          ...(requestTimeout ? { timeouts: { request: requestTimeout } } : {}),
        },
      ],
    },
  };
}

/** the path prefix a live HTTPRoute of ours routes (the first rule's first match) */
export function servedPath(route: KubeObject): string | undefined {
  const rules = (route.spec as { rules?: Array<{ matches?: Array<{ path?: { value?: string } }> }> } | undefined)
    ?.rules;
  return rules?.[0]?.matches?.[0]?.path?.value;
}

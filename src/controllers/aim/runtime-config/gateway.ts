// Which Gateway a runtime config's `routing.gatewayRef` points at, and whether the controller can check it.
// A missing Gateway is not a syntax error (ConfigValid stays True) but every HTTPRoute built from the config
// would dangle, so the config reports it as GatewayFound=False and is not Ready.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { GatewayParentRef, RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
export const Gateways = kindRef<KubeObject>(`${GATEWAY_API_GROUP}/v1`, 'Gateway');

export type RuntimeConfigScope = 'Namespace' | 'Cluster';

export type GatewayCheck =
  /** routing explicitly disabled, or no gatewayRef: nothing to check */
  | { kind: 'none' }
  /** one Gateway to look for */
  | { kind: 'check'; namespace: string; name: string }
  /** a ref the controller cannot resolve to one object; said as GatewayFound=Unknown */
  | { kind: 'unchecked'; reason: string; message: string };

/**
 * `enabled: false` switches the check off. An unset `enabled` still checks: a namespaced config may inherit
 * `enabled: true` from the cluster config of the same name, and a ref naming a missing Gateway is worth
 * knowing about either way. The namespace defaults as Gateway API defaults a parentRef's: to the route's
 * namespace, which for a namespaced config is the config's own (its AIMServices live there). A cluster config
 * without a namespace serves every namespace, each with its own route namespace, so no single Gateway can be
 * checked.
 */
export function gatewayCheckFor(
  spec: RuntimeConfigSpec | undefined,
  scope: RuntimeConfigScope,
  configNamespace: string | undefined,
): GatewayCheck {
  const routing = spec?.routing;
  const ref: GatewayParentRef | undefined = routing?.gatewayRef;
  if (!ref || routing?.enabled === false || typeof ref.name !== 'string' || ref.name === '') return { kind: 'none' };
  const group = ref.group ?? GATEWAY_API_GROUP;
  const kind = ref.kind ?? 'Gateway';
  if (group !== GATEWAY_API_GROUP || kind !== 'Gateway') {
    return {
      kind: 'unchecked',
      reason: 'ParentNotAGateway',
      message: `spec.routing.gatewayRef refers to ${kind}${group ? `.${group}` : ''} ${ref.name}, not a Gateway; only Gateways are checked`,
    };
  }
  const namespace = ref.namespace ?? (scope === 'Namespace' ? configNamespace : undefined);
  if (!namespace) {
    return {
      kind: 'unchecked',
      reason: 'GatewayNamespaceUnset',
      message:
        `spec.routing.gatewayRef.namespace is not set, so each AIMService's HTTPRoute refers to Gateway ${ref.name} ` +
        `in the service's own namespace; set the namespace to have this Gateway checked here`,
    };
  }
  return { kind: 'check', namespace, name: ref.name };
}

/** index value a Gateway and the configs referring to it share */
export const gatewayKey = (namespace: string, name: string) => `${namespace}/${name}`;

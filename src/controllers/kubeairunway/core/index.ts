// The `kubeairunway-core` controller set: validation and provider selection for ModelDeployments.
import { KAR_GROUP } from '../../../apis/kubeairunway/index.ts';
import { READ, rule } from '../../rbac.ts';
import type { ControllerSet } from '../../registry.ts';
import { GATEWAY_RULES, type GatewayControllerOptions, registerGatewayController } from '../gateway/index.ts';
import { type CoreControllerOptions, registerKubeairunwayCoreController } from './controller.ts';
import { registerHeartbeatStatusController } from './heartbeat-status.ts';

export { CORE_CONCURRENCY, type CoreControllerOptions, registerKubeairunwayCoreController } from './controller.ts';
export { type CoreDecision, type CoreInputs, type CoreStatus, planCoreStatus } from './plan.ts';

export function kubeairunwayCoreSet(
  opts: CoreControllerOptions & { gateway?: GatewayControllerOptions } = {},
): ControllerSet {
  return {
    name: 'kubeairunway-core',
    description: 'ModelDeployment validation, CEL provider selection and routing through the shared Gateway',
    // the gateway controller is the core's, as in the public project (docs/kubeairunway.md, "Gateway")
    register: async (mgr) => [
      await registerKubeairunwayCoreController(mgr, opts),
      // a dead provider's InferenceProviderConfig says ready: false (heartbeat-status.ts)
      registerHeartbeatStatusController(mgr, {
        ...(opts.now ? { now: opts.now } : {}),
        ...(opts.heartbeatStaleAfterMs !== undefined ? { staleAfterMs: opts.heartbeatStaleAfterMs } : {}),
      }),
      await registerGatewayController(mgr, opts.gateway),
    ],
    rules: [
      rule(KAR_GROUP, ['modeldeployments', 'inferenceproviderconfigs'], READ),
      // the finalizer of a dead provider that a deployment was selected away from before it built anything
      rule(KAR_GROUP, ['modeldeployments'], ['patch']),
      rule(KAR_GROUP, ['modeldeployments/status'], ['patch']),
      // ready: false and Heartbeat=False on a provider whose heartbeat went stale
      rule(KAR_GROUP, ['inferenceproviderconfigs/status'], ['patch']),
      // "Provider '{name}' CRD not installed in cluster" needs to know which APIs are served
      rule('apiextensions.k8s.io', ['customresourcedefinitions'], READ),
      ...GATEWAY_RULES,
    ],
  };
}

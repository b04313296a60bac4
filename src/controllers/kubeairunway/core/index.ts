// The `kubeairunway-core` controller set: validation and provider selection for ModelDeployments.
import { KAR_GROUP } from '../../../apis/kubeairunway/index.ts';
import { READ, rule } from '../../rbac.ts';
import type { ControllerSet } from '../../registry.ts';
import { type CoreControllerOptions, registerKubeairunwayCoreController } from './controller.ts';

export { type CoreDecision, type CoreInputs, type CoreStatus, planCoreStatus } from './plan.ts';
export { type CoreControllerOptions, registerKubeairunwayCoreController } from './controller.ts';

export function kubeairunwayCoreSet(opts: CoreControllerOptions = {}): ControllerSet {
  return {
    name: 'kubeairunway-core',
    description: 'ModelDeployment validation and CEL provider selection (creates nothing)',
    register: (mgr) => registerKubeairunwayCoreController(mgr, opts),
    rules: [
      rule(KAR_GROUP, ['modeldeployments', 'inferenceproviderconfigs'], READ),
      rule(KAR_GROUP, ['modeldeployments/status'], ['patch']),
      // "Provider '{name}' CRD not installed in cluster" needs to know which APIs are served
      rule('apiextensions.k8s.io', ['customresourcedefinitions'], READ),
    ],
  };
}

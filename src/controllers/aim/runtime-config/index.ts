// AIMRuntimeConfig / AIMClusterRuntimeConfig controllers: validation and status of the configs.
export {
  RUNTIME_CONFIG_FIELD_MANAGER,
  RUNTIME_CONFIG_RBAC_RULES,
  registerAimRuntimeConfigControllers,
  runtimeConfigPipeline,
} from './controller.ts';
export { type GatewayCheck, Gateways, gatewayCheckFor, type RuntimeConfigScope } from './gateway.ts';
export {
  CONDITION,
  type GatewayLookup,
  type RuntimeConfigObservation,
  type RuntimeConfigStatus,
  setRuntimeConfigStatus,
} from './status.ts';
export {
  gatewayDurationProblem,
  type NamespaceAuthFields,
  qualifiedNameProblem,
  REASON,
  type RuntimeConfigReport,
  type SpecProblem,
  validateRuntimeConfigSpec,
} from './validate.ts';

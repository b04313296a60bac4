// Provider selection for ModelDeployments, pure: readiness (status.ready + heartbeat), capability filter,
// CEL selection rules, stickiness; plus the InferenceProviderConfigs the shipped providers register.
export { DEFAULT_PROVIDER_SPECS, defaultProviderConfig } from './default-providers.ts';
export { explainSelection } from './explain.ts';
export type { ProviderOutcome, RuleOutcome, SelectionExplanation } from './explanation.ts';
export { coarseAge, type ProviderReadiness, providerReadiness, staleAt } from './readiness.ts';
export {
  type CompiledRule,
  capabilityMismatch,
  type PreparedProvider,
  prepareProvider,
  requestedGpuTypes,
  type SelectionOptions,
  type SelectionReason,
  type SelectionResult,
  type SkippedRule,
  selectProvider,
  wantsGpu,
  wantsZeroReplicas,
} from './select.ts';

// The generic provider controller: one skeleton that turns any ProviderDefinition into a controller set
// with docs/kubeairunway.md's lifecycle. See definition.ts for what a provider supplies.
export {
  concernsProvider,
  type ProviderController,
  type ProviderControllerOptions,
  registerProviderController,
} from './controller.ts';
export type { MappedStatus, ProviderDefinition } from './definition.ts';
export {
  buildDesired,
  describeIdentityChanges,
  type IdentityRecord,
  identityChangesSince,
  identityOf,
  ownedBy,
  recordedIdentity,
  refOf,
  upstreamLabels,
} from './desired.ts';
export {
  type CleanupCause,
  cleanupStartedAt,
  cleanupTimedOut,
  decideLifecycle,
  type LifecycleInput,
  type LifecycleStep,
  selectedProvider,
  type UpstreamView,
} from './lifecycle.ts';
export { mergeOverrides } from './merge.ts';
export { type PhaseCounter, type ProviderMetrics, providerMetrics } from './metrics.ts';
export {
  EventReason,
  IDENTITY_ANNOTATION,
  MD_PROVIDER_INDEX,
  providerControllerName,
  Reason,
  UPSTREAM_CRD_CONDITION,
} from './names.ts';
export { conflictMessage, crdMissingMessage, planSync, recreateMessage, type SyncPlan } from './plan.ts';
export { ProviderReconciler, type ProviderReconcilerOptions } from './reconciler.ts';
export { ProviderRegistration, type RegistrationOptions } from './registration.ts';
export { providerControllerSet, providerRules } from './set.ts';
export { computeProviderStatus, type ProviderStatus, type StatusContext, type StatusOutcome } from './status.ts';

// Names the provider skeleton uses on top of the API's well-known ones (src/apis/kubeairunway/common.ts):
// condition reasons, event reasons, the identity annotation and the cache index. One place, so the
// reconciler, the status mapping, the tests and the docs agree on the spelling.
import { KAR_GROUP } from '../../../apis/kubeairunway/index.ts';

/** `provider-<name>`: the controller (metrics label, event reporter) of one provider */
export function providerControllerName(provider: string): string {
  return `provider-${provider}`;
}

/**
 * On the upstream object: the identity-field values it was built from, as JSON. Kept on the object rather
 * than in the ModelDeployment's status because it describes that object: it is created and deleted with
 * it (a recreated object can never carry a stale record), and the status schema has no field for it (the
 * server would prune one).
 */
export const IDENTITY_ANNOTATION = `${KAR_GROUP}/identity`;

/** ModelDeployments filed by status.provider.name (the provider in effect) */
export const MD_PROVIDER_INDEX = `${KAR_GROUP}/status-provider`;

/** condition reasons the provider writes */
export const Reason = {
  CompatibilityVerified: 'CompatibilityVerified',
  IncompatibleConfiguration: 'IncompatibleConfiguration',
  ResourceCreated: 'ResourceCreated',
  ResourceConflict: 'ResourceConflict',
  InvalidOverrides: 'InvalidOverrides',
  TransformFailed: 'TransformFailed',
  ApplyFailed: 'ApplyFailed',
  CRDNotInstalled: 'CRDNotInstalled',
  RecreatingResource: 'RecreatingResource',
  WaitingForDeletion: 'WaitingForDeletion',
  DeploymentReady: 'DeploymentReady',
  DeploymentFailed: 'DeploymentFailed',
  DeploymentInProgress: 'DeploymentInProgress',
  /** Running as asked with spec.scaling.replicas 0: no pod serves, so not Ready */
  ScaledToZero: 'ScaledToZero',
  DeploymentPending: 'DeploymentPending',
  ValidationFailed: 'ValidationFailed',
} as const;

/** event reasons that are not condition reasons */
export const EventReason = {
  RecreatingResource: 'RecreatingResource',
  ProviderChanged: 'ProviderChanged',
  FinalizerTimeout: 'FinalizerTimeout',
  UnknownOverride: 'UnknownOverride',
  DeletingResource: 'DeletingResource',
  DeletingStorage: 'DeletingStorage',
} as const;

/** the InferenceProviderConfig condition saying whether the upstream kind is served */
export const UPSTREAM_CRD_CONDITION = 'UpstreamCRDInstalled';

// ModelDeployment admission logic, pure: defaulting, validation, provider overrides, provider compatibility
// and the identity/config field split. Shared by the webhook server, the core controller (reconcile-time
// validation when the webhook was bypassed) and the provider controllers (compatibility, overrides).
//
//   const md2 = defaultModelDeployment(md);
//   const { errors, warnings } = validateModelDeployment(md2, oldMd, { providers });
//   if (errors.length) deny(admissionMessage(errors));

export { DNS_LABEL_MAX, DOWNLOAD_JOB_SUFFIX, PROVIDER_CHILD_SUFFIXES, validateChildNames } from './child-names.ts';
export { checkProviderCompatibility, PROVIDER_DISPLAY_NAMES, requestsGpu } from './compatibility.ts';
export { defaultModelDeployment, modelSourceOf, servingModeOf } from './defaults.ts';
export {
  CONFIG_FIELDS,
  IDENTITY_FIELDS,
  type IdentityChange,
  type IdentityField,
  identityChanges,
  identityChangeWarning,
} from './identity.ts';
export {
  argInBothPlaces,
  DISAGGREGATED_GPU_CONFLICT,
  DISAGGREGATED_REQUIRES_DECODE_GPU,
  DISAGGREGATED_REQUIRES_PREFILL_GPU,
  DISAGGREGATED_REQUIRES_SCALING,
  ENGINE_REQUIRES_GPU,
  ENGINE_TYPE_REQUIRED,
  exceedsMaximum,
  IMAGE_CONFLICT,
  invalidArgKey,
  invalidQuantity,
  invalidSecretName,
  MAX_CPU,
  MAX_GPU_COUNT,
  MAX_MEMORY,
  MAX_REPLICAS,
  MODEL_ID_REQUIRED,
  NAME_WITH_DOTS,
  providerCrdNotInstalled,
  WARN_CONTEXT_LENGTH_TRTLLM,
  WARN_SERVED_NAME_CUSTOM,
  WARN_TRUST_REMOTE_CODE,
} from './messages.ts';
export { findOversizedOverrides } from './override-limits.ts';
export {
  findPrivilegedOverrides,
  isPrivilegedOverrideKey,
  OVERRIDES_PATH,
  type OverrideType,
  type OverrideValidation,
  PRIVILEGED_OVERRIDE_KEYS,
  PROVIDER_OVERRIDES,
  privilegedFieldMessage,
  RESERVED_TOP_LEVEL_KEYS,
  validateProviderOverrides,
} from './overrides.ts';
export {
  DEFAULT_MANAGED_ACCESS_MODE,
  DEFAULT_MOUNT_PATHS,
  defaultStorage,
  isManaged,
  managedClaimName,
  type StoragePurpose,
  type StorageVolume,
  SYSTEM_PATHS,
  validateStorage,
} from './storage.ts';
export type { ValidationIssue, ValidationResult } from './types.ts';
export { admissionMessage, type ValidationContext, validateModelDeployment } from './validate.ts';

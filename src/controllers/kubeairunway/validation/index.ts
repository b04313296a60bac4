// ModelDeployment admission logic, pure: defaulting, validation, provider overrides, provider compatibility
// and the identity/config field split. Shared by the webhook server, the core controller (reconcile-time
// validation when the webhook was bypassed) and the provider controllers (compatibility, overrides).
//
//   const md2 = defaultModelDeployment(md);
//   const { errors, warnings } = validateModelDeployment(md2, oldMd, { providers });
//   if (errors.length) deny(admissionMessage(errors));

export * from './compatibility.ts';
export * from './defaults.ts';
export * from './identity.ts';
export * from './messages.ts';
export * from './overrides.ts';
export type { ValidationIssue, ValidationResult } from './types.ts';
export * from './validate.ts';

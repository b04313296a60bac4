// Provider selection for ModelDeployments, pure: readiness (status.ready + heartbeat), capability filter,
// CEL selection rules, stickiness; plus the InferenceProviderConfigs the shipped providers register.
export * from './default-providers.ts';
export * from './explain.ts';
export * from './readiness.ts';
export * from './select.ts';

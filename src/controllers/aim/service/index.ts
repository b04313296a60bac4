// The AIMService controller (seed 000): an AIMService becomes a KServe InferenceService and, when routing
// is enabled, a Gateway API HTTPRoute, configured by the resolved runtime config.
export * from './children.ts';
export * from './controller.ts';
export * from './health.ts';
export * from './inference-service.ts';
export * from './model.ts';
export * from './names.ts';
export * from './plan.ts';
export * from './reconciler.ts';
export * from './routing.ts';

// The generic provider controller: one skeleton that turns any ProviderDefinition into a controller set
// with the seed's lifecycle. See definition.ts for what a provider supplies.
export * from './controller.ts';
export type { MappedStatus, ProviderDefinition } from './definition.ts';
export * from './desired.ts';
export * from './lifecycle.ts';
export * from './merge.ts';
export * from './metrics.ts';
export * from './names.ts';
export * from './plan.ts';
export * from './reconciler.ts';
export * from './registration.ts';
export * from './set.ts';
export * from './status.ts';

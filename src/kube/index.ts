// The controller runtime's public surface. Controllers and the engine import from here.

export * from './apply-noop.ts';
export * from './backoff.ts';
export * from './builder.ts';
export * from './cache.ts';
export * from './client.ts';
export * from './controller.ts';
export * from './crd.ts';
export * from './equality.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './freeze.ts';
export * from './http.ts';
export * from './informer.ts';
export * from './kinds.ts';
export * from './labels.ts';
export * from './leaderelection.ts';
export * from './listwatch.ts';
export * from './log.ts';
export * from './manager.ts';
export * from './mapper.ts';
export * from './metrics.ts';
export * from './predicates.ts';
export * from './ratelimit.ts';
export * from './store.ts';
export * from './types.ts';
export * from './workqueue.ts';

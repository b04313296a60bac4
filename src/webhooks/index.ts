// The admission and conversion webhook server: register handlers, start it with certificates it manages
// itself, and generate the webhook configurations that point kube-apiserver at it.

export * from './ca-injector.ts';
export * from './cert-secret.ts';
export * from './certs.ts';
export * from './configurations.ts';
export * from './conversion.ts';
export * from './dispatch.ts';
export * from './metrics.ts';
export * from './review.ts';
export * from './rotation.ts';
export * from './rules.ts';
export * from './server.ts';
export * from './start.ts';

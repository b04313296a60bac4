// Public surface of CRD schema handling for the rest of the API server.
export type { StatusCause } from '../errors.ts';
export { checkCrd, defaultCrd } from './crd-check.ts';
export { applyDefaults } from './defaulting.ts';
export { crdOpenAPIToPublished, type PublishOptions } from './published.ts';
export type * from './types.ts';
export { type CrdVersionValidator, compileCrdVersionValidator } from './validator.ts';

// CustomResourceDefinitions: built once from zod schemas (structural, with printer columns and CEL rules),
// and installed on a cluster by ensureCrd.

export { type EnsureCrdOptions, ensureCrd } from './ensure.ts';
export { type CrdSpec, type CrdVersionSpec, crdFromZod, type PrinterColumn, structuralSchema } from './gen.ts';
export { conditionListSchema, conditionSchema } from './meta-schemas.ts';
export { type JsonSchema, toStructural } from './structural.ts';

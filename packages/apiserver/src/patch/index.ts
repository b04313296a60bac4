// Patch application and server-side apply for the embedded API server: JSON merge patch, JSON
// patch, strategic merge patch, and managedFields bookkeeping for apply and every other write.

export { builtinPatchSchemas, patchSchemaFor } from './builtin-schemas.ts';
export { FieldSet } from './fieldpath.ts';
export { applyMergePatch } from './json-merge-patch.ts';
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.ts';
export type { ManagedFieldsEntry } from './managed-fields.ts';
export { schemaFromOpenAPI } from './openapi-schema.ts';
export { type FieldPath, type PathElement, pathString } from './path-elements.ts';
export type { ListSchema, PatchSchema, ScalarSchema, StructSchema, UntypedSchema } from './schema.ts';
export {
  type ApplyOptions,
  type ApplyResult,
  applyServerSide,
  LAST_APPLIED_ANNOTATION,
  recordUpdate,
  type UpdateOptions,
} from './server-side-apply.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';

// Patch application and server-side apply for the embedded API server: JSON merge patch, JSON
// patch, strategic merge patch, and managedFields bookkeeping for apply and every other write.
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.ts';
export { applyMergePatch } from './json-merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';
export {
  applyServerSide,
  type ApplyOptions,
  type ApplyResult,
  LAST_APPLIED_ANNOTATION,
  recordUpdate,
  type UpdateOptions,
} from './server-side-apply.ts';
export type { ManagedFieldsEntry } from './managed-fields.ts';
export { builtinPatchSchemas, patchSchemaFor } from './builtin-schemas.ts';
export { schemaFromOpenAPI } from './openapi-schema.ts';
export type { ListSchema, PatchSchema, ScalarSchema, StructSchema, UntypedSchema } from './schema.ts';
export { FieldSet, type FieldPath, type PathElement, pathString } from './fieldpath.ts';

// The result shape shared by every check: errors reject (admission) or fail (reconcile); warnings are shown
// to the user (admission warnings, events) and never block.

export interface ValidationIssue {
  /** the offending field, e.g. `spec.resources.gpu.count` */
  field: string;
  /** the text the user sees, e.g. after `admission webhook "…" denied the request: ` */
  message: string;
}

export interface ValidationResult {
  errors: ValidationIssue[];
  warnings: string[];
}

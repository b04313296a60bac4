// The annotations that freeze an AIM object: set to exactly "true", its controller leaves it (and its
// status) alone, so tests and operators can hold an upstream object in a chosen state. Both spellings are
// accepted: modelplane's `reconcile-paused` and `reconciliation-paused`, the one AMD's AIM engine reads.
export const AIM_PAUSE_ANNOTATION = 'aim.eai.amd.com/reconcile-paused';
export const AIM_RECONCILIATION_PAUSED_ANNOTATION = 'aim.eai.amd.com/reconciliation-paused';
export const AIM_PAUSE_ANNOTATIONS: readonly string[] = Object.freeze([
  AIM_PAUSE_ANNOTATION,
  AIM_RECONCILIATION_PAUSED_ANNOTATION,
]);

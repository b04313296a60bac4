// The annotation that freezes an AIM object: set to exactly "true", its controller leaves it (and its
// status) alone, so tests and operators can hold an upstream object in a chosen state.
export const AIM_PAUSE_ANNOTATION = 'aim.eai.amd.com/reconcile-paused';

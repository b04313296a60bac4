// `@modelplane/apimachinery`: the one set of Kubernetes types the API server, the controller runtime and the
// webhooks share. Subpath exports carry the shared libraries: `./quantity` (resource.Quantity), `./jsonpath`
// (kubectl's JSONPath dialect) and `./cel` (the CEL environment with Kubernetes' libraries).
export {
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
  type KubeList,
  type KubeObject,
  type ListMeta,
  type ManagedFieldsEntry,
  type ObjectMeta,
  type OwnerReference,
  type UserInfo,
  type WatchEvent,
  type WatchEventType,
  parseApiVersion,
} from './meta.ts';
export { type Status, type StatusCause, type StatusDetails, isStatus, reasonForCode } from './status.ts';
export type { Condition, ConditionStatus } from './conditions.ts';
export { humanDuration } from './duration.ts';
export { parseGoDuration } from './go-duration.ts';
export { ReverseIndex } from './reverse-index.ts';
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionReviewVersion,
  AdmissionUserInfo,
} from './admission.ts';

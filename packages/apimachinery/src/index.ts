// `@modelplane/apimachinery`: the one set of Kubernetes types the API server, the controller runtime and the
// webhooks share. Subpath exports carry the shared libraries: `./quantity` (resource.Quantity), `./jsonpath`
// (kubectl's JSONPath dialect) and `./cel` (the CEL environment with Kubernetes' libraries).

export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionReviewVersion,
  AdmissionUserInfo,
} from './admission.ts';
export type { Condition, ConditionStatus, ObservedCondition } from './conditions.ts';
export { humanDuration } from './duration.ts';
export { formatGoDuration, parseGoDuration } from './go-duration.ts';
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
  parseApiVersion,
  type UserInfo,
  type WatchEvent,
  type WatchEventType,
} from './meta.ts';
export { ReverseIndex } from './reverse-index.ts';
export { isStatus, reasonForCode, type Status, type StatusCause, type StatusDetails } from './status.ts';

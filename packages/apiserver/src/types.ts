// The Kubernetes types the server works with, from the one shared set (@modelplane/apimachinery). Objects
// are plain JSON; the server never mutates a stored object (every write produces a new one), so readers can
// hold references without copying.
export type {
  KubeObject,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  UserInfo,
  WatchEventType,
} from '@modelplane/apimachinery';

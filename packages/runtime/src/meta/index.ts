// Object metadata helpers: keys, owner references, label selectors, deep equality and freezing.

export { deepEqual, isSubset } from './equality.ts';
export { type DeepReadonly, deepFreeze, thaw } from './freeze.ts';
export {
  type LabelSelectorObject,
  type Operator,
  parseSelector,
  type Requirement,
  Selector,
  selectorFromObject,
} from './labels.ts';
export {
  controllerOf,
  controllerRef,
  type GroupVersion,
  type KindRef,
  type KubeList,
  type KubeObject,
  keyOf,
  kindRef,
  type ListMeta,
  type ManagedFieldsEntry,
  type ObjectKey,
  type ObjectMeta,
  type OwnerReference,
  objectKeyString,
  parseApiVersion,
  parseKey,
  type WatchEvent,
  type WatchEventType,
} from './types.ts';

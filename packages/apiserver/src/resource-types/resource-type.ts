// A ResourceType is everything the server knows about one group/resource: its names, scope, versions and
// subresources. Built-in kinds are declared in builtin-types.ts; custom resources are derived from their
// CustomResourceDefinition by crd-types.ts. Handlers only ever see this shape.
import type {
  CustomResourceColumnDefinition,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
} from '../schema/types.ts';

/** the CRD's shapes serve built-in kinds too */
export type ScaleSubresource = CustomResourceSubresourceScale;
export type PrinterColumn = CustomResourceColumnDefinition;

export interface ResourceVersion {
  name: string;
  served: boolean;
  storage: boolean;
  /** CRDs only: openAPIV3Schema of this version */
  schema?: JSONSchemaProps;
  printerColumns?: PrinterColumn[];
  selectableFields?: string[];
}

export interface ResourceType {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  versions: ResourceVersion[];
  subresources: { status: boolean; scale?: ScaleSubresource; log?: boolean; token?: boolean };
  builtin: boolean;
  /** storage identity: two views of the same objects (core/v1 and events.k8s.io/v1 Events) share one */
  storageKey: string;
  /** CRDs: `None` rewrites apiVersion; `Webhook` calls the conversion webhook */
  conversion?: { strategy: 'None' | 'Webhook'; webhook?: unknown };
  /** verbs served; default ALL_VERBS (virtual resources such as reviews serve only `create`) */
  verbs?: string[];
  /** the CRD's uid, so a recreated CRD is a new type */
  crdUid?: string;
  /** how metadata.generation is kept: absent = the kind has none (kube 1.32: Pods, Services, ConfigMaps, RBAC …) */
  generation?: Generation;
  /**
   * a /status write may also change annotations (kube's Deployment status strategy resets only spec and labels:
   * the deployment controller records `deployment.kubernetes.io/revision` that way, without bumping generation)
   */
  statusWritesAnnotations?: boolean;
}

/**
 * What bumps metadata.generation: any change outside metadata (and status, with a status subresource), or for
 * Deployments also an annotation change, because annotations are copied to their ReplicaSets.
 */
export type Generation = 'spec' | 'spec+annotations';

export function storageVersion(rt: ResourceType): string {
  return (rt.versions.find((v) => v.storage) ?? rt.versions[0]!).name;
}

export function servedVersion(rt: ResourceType, version: string): ResourceVersion | undefined {
  return rt.versions.find((v) => v.name === version && v.served);
}

export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export const READ_VERBS = ['get', 'list', 'watch'];
export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

// Extension points the lifecycle plugs into: admission (webhooks), conversion (webhooks), and
// deletion side effects (garbage collection, namespace lifecycle). Each has a no-op default so the
// core write path stays the same whether or not they are configured.
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject, UserInfo } from '../types.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  rt: ResourceType;
  version: string;
  operation: AdmissionOperation;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
  /** warnings returned to the client */
  warnings: string[];
  /** annotations for the request's audit record (PodSecurity's `pod-security.kubernetes.io/…`) */
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionChain {
  /** may return a modified object */
  mutate(attrs: AdmissionAttributes): Promise<KubeObject | undefined>;
  /** throws StatusError to deny */
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export const noAdmission: AdmissionChain = {
  mutate: async (a) => a.object,
  validate: async () => {},
};

export interface Converter {
  /** converts objects (all of one type) to apiVersion `group/version` */
  convert(rt: ResourceType, objects: KubeObject[], version: string): Promise<KubeObject[]>;
}

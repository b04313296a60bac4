// admission.k8s.io AdmissionReview (v1 and v1beta1 share the shape): what the API server sends an admission
// webhook and what the webhook answers. `object` is null for DELETE and `oldObject` null for CREATE.
import type { GroupVersionKind, GroupVersionResource, KubeObject } from './meta.ts';
import type { Status } from './status.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export type AdmissionReviewVersion = 'v1' | 'v1beta1';

export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  object: T | null;
  oldObject: T | null;
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1) */
  options?: unknown;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** why a request was denied (`code` and `message` always set by a webhook that denies) */
  status?: Status & { code: number; message: string };
  /** base64 of a JSON Patch */
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionReview<T extends KubeObject = KubeObject> {
  apiVersion: `admission.k8s.io/${AdmissionReviewVersion}`;
  kind: 'AdmissionReview';
  request?: AdmissionRequest<T>;
  response?: AdmissionResponse;
}

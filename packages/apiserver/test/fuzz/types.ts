// The shapes the fuzz generators share: a resource as discovery lists it and a generated request.
import type { RawRequest } from './http.ts';

export interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** subresource names, e.g. status, scale, log, token */
  subresources: string[];
  /** the verbs discovery lists (virtual resources such as reviews serve only create) */
  verbs: string[];
}

export interface FuzzRequest extends RawRequest {
  /** endpoint family, for the summary */
  family: string;
  /** what the generator did to the body/URL */
  note: string;
  /** the statuses kube-apiserver could give this request, when the generator knows them for sure */
  expect?: number[];
}

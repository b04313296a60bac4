// KServe's InferenceService (serving.kserve.io/v1beta1). Typed once for the controllers that write them and the simulators that stand in for
// their operators; only the fields modelplane reads or writes are typed, the objects are the API server's JSON.

import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

export interface InferenceService extends KubeObject {
  spec?: { predictor?: Record<string, unknown> };
  status?: {
    observedGeneration?: number;
    conditions?: ObservedCondition[];
    url?: string;
    modelStatus?: { transitionStatus?: string; lastFailureInfo?: { reason?: string; message?: string } };
  };
}

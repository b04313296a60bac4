// The Gateway API's Gateway and HTTPRoute and the Inference Extension's InferencePool. Typed once for the controllers that write them and the simulators that stand in for
// their operators; only the fields modelplane reads or writes are typed, the objects are the API server's JSON.

import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

export interface RouteParentStatus {
  parentRef: { group?: string; kind?: string; namespace?: string; name: string; sectionName?: string };
  controllerName?: string;
  conditions?: ObservedCondition[];
}

export interface HTTPRoute extends KubeObject {
  spec?: { parentRefs?: Array<{ name: string; namespace?: string }> };
  status?: { parents?: RouteParentStatus[] };
}

export interface GatewayListener {
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
}

export interface Gateway extends KubeObject {
  spec?: { gatewayClassName?: string; listeners?: GatewayListener[] };
  status?: {
    addresses?: Array<{ type?: string; value: string }>;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

export interface InferencePool extends KubeObject {
  spec?: {
    selector?: { matchLabels?: Record<string, string> };
    targetPorts?: Array<{ number: number }>;
    endpointPickerRef?: {
      group?: string;
      kind?: string;
      name: string;
      port?: { number: number };
      failureMode?: string;
    };
  };
}

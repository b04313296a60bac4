// The simulated Gateway's data plane for `modelplane dev` (docs/kubeairunway.md, "Gateway on the dev cluster").
export {
  DESTINATION_ENDPOINT_HEADER,
  type GatewayAddress,
  type GatewayAddressSource,
  GatewayDataPlane,
  type GatewayDataPlaneOptions,
  HOST_PORT_ADDRESS_TYPE,
} from './data-plane.ts';
export {
  EndpointPicker,
  type EndpointPickerOptions,
  MAX_METRICS_BYTES,
  type PodLoad,
  parseLoad,
} from './endpoint-picker.ts';
export { DEFAULT_HOLD_MS, HeldRequests, QUEUE_METRIC } from './hold.ts';
export {
  type AttachedRoute,
  type BackendRef,
  MODEL_NAME_HEADER,
  modelOfBody,
  pickBackend,
  type RouteDecision,
  type RoutedRequest,
  type RouteFilter,
  type RouteRule,
  rewrittenPath,
  routeRequest,
} from './routing.ts';

// The core webhook's messages. The first group is docs/kubeairunway.md's validation table, word for word: tests and
// users compare them exactly, as kubectl prints them after `denied the request: `.
import type { EngineType } from '../../../apis/kubeairunway/index.ts';

export const ENGINE_REQUIRES_GPU: Readonly<Partial<Record<EngineType, string>>> = {
  vllm: 'vLLM engine requires GPU (set resources.gpu.count > 0)',
  sglang: 'SGLang engine requires GPU (set resources.gpu.count > 0)',
  trtllm: 'TensorRT-LLM engine requires GPU (set resources.gpu.count > 0)',
};
export const DISAGGREGATED_GPU_CONFLICT = 'Cannot specify both resources.gpu and scaling.prefill/decode';
export const DISAGGREGATED_REQUIRES_SCALING = 'Disaggregated mode requires scaling.prefill and scaling.decode';
export const DISAGGREGATED_REQUIRES_PREFILL_GPU = 'Disaggregated mode requires scaling.prefill.gpu.count';
export const DISAGGREGATED_REQUIRES_DECODE_GPU = 'Disaggregated mode requires scaling.decode.gpu.count';
export const ENGINE_TYPE_REQUIRED = 'engine.type is required';
export const MODEL_ID_REQUIRED = 'model.id is required when source is huggingface';
/**
 * The table's message, then which API is missing (per kind: a group/version stays served while another of its
 * kinds is) and what to do, from what the provider's registration reports in its status
 */
export function providerCrdNotInstalled(
  name: string,
  upstream?: { upstreamCRDVersion?: string | undefined; upstreamKind?: string | undefined },
): string {
  const head = `Provider '${name}' CRD not installed in cluster`;
  const gv = upstream?.upstreamCRDVersion;
  if (!gv)
    return `${head}: provider '${name}' has not reported the API it builds (status.upstreamCRDVersion of InferenceProviderConfig ${name}); start its provider controller`;
  const kind = upstream.upstreamKind;
  const what = kind ? `kind ${kind} of ${gv} is not served` : `${gv} is not served`;
  return `${head}: ${what}; install the CRD of the provider's operator (the deployment proceeds once it is served)`;
}
/** scaling.replicas: 0 for a provider that always runs a pod */
export function zeroReplicasUnsupported(
  provider: string,
  providers: ReadonlyArray<{ metadata: { name?: string }; spec?: { capabilities?: { zeroReplicas?: boolean } } }>,
): string {
  const able = providers
    .filter((p) => p.spec?.capabilities?.zeroReplicas === true)
    .map((p) => p.metadata.name ?? '')
    .sort();
  return `spec.scaling.replicas: 0 is not supported by provider '${provider}' (it always runs at least one serving pod): set replicas to 1 or more${able.length ? `, or use a provider that runs 0 replicas (${able.join(', ')})` : ''}`;
}
/** spec.provider.name names no registered InferenceProviderConfig (not a missing CRD: there is no such provider) */
export function providerNotRegistered(name: string, registered: readonly string[]): string {
  const known = registered.length ? `registered providers: ${[...registered].sort().join(', ')}` : 'none is registered';
  return `spec.provider.name: no provider '${name}' is registered (no InferenceProviderConfig named ${name}; ${known}): name a registered provider, or start the '${name}' provider controller`;
}

// Where docs/kubeairunway.md is silent: the upstream webhook's checks, with messages that name the field.
export const MAX_GPU_COUNT = 64;
export const MAX_REPLICAS = 32;
export const MAX_CPU = '512';
export const MAX_MEMORY = '4Ti';

export function exceedsMaximum(field: string, value: string | number, max: string | number): string {
  return `${field} ${value} exceeds maximum allowed (${max})`;
}
export function invalidQuantity(field: string, value: unknown): string {
  return `${field}: invalid resource quantity ${JSON.stringify(value)} (use a Kubernetes quantity such as "4", "500m" or "16Gi")`;
}
export const NAME_WITH_DOTS =
  'metadata.name must not contain dots: it names the provider resource and its Service (use dashes)';
export const IMAGE_CONFLICT =
  'spec.image and spec.engine.image are both set to different images: set only spec.engine.image';
export function argInBothPlaces(flag: string): string {
  return `engine.args key "${flag}" is also passed in engine.extraArgs: set it in one place only`;
}
export function invalidArgKey(key: string): string {
  return `engine.args key "${key}" is invalid: use letters, digits, "_" and "-" without leading dashes (it is rendered as --${key.replace(/^-+/, '')})`;
}
export function invalidSecretName(name: string): string {
  return `secrets.huggingFaceToken must be the name of a Secret in the same namespace (a DNS subdomain), got ${JSON.stringify(name)}`;
}

export const WARN_SERVED_NAME_CUSTOM =
  'model.servedName is ignored when model.source is custom (the image decides the served name)';
export const WARN_TRUST_REMOTE_CODE =
  'engine.trustRemoteCode is true: the model repository may run arbitrary code inside the serving pod';
export const WARN_CONTEXT_LENGTH_TRTLLM =
  'engine.contextLength is ignored by the trtllm engine (it is fixed when the engine is built)';

/** spec.gateway.modelName a vLLM, SGLang or TensorRT-LLM engine does not answer to (they refuse other names) */
export const gatewayModelNameNotServed = (routed: string, served: string) =>
  `spec.gateway.modelName: requests for "${routed}" are routed to this deployment, but its engine serves "${served}" (spec.model.servedName, else spec.model.id) and answers any other model name 404 (model does not exist): set spec.model.servedName to "${routed}", or leave spec.gateway.modelName unset`;

// Names that cross a process boundary: the operator writes them and the simulators (or the real projects they
// stand in for) read them, so both sides import them from here rather than one from the other. Like
// k8s.io/api's well-known labels.

/** the request header a Gateway API route matches to pick a model's backend (docs/kubeairunway.md, "Gateway") */
export const MODEL_NAME_HEADER = 'X-Gateway-Model-Name';

/** the label that marks the Gateway KubeAIRunway routes through when several exist (docs/kubeairunway.md) */
export const INFERENCE_GATEWAY_LABEL = 'kubeairunway.ai/inference-gateway';

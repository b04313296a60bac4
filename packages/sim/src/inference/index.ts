// The vLLM-compatible inference simulator: one HTTP server per simulated serving pod (docs/autoscaling.md,
// "The inference simulator").
export { type CapacityModel, DEFAULT_CAPACITY, type GenerationResult, InferenceEngine } from './engine.ts';
export { type LoadOptions, type LoadProgress, type LoadSummary, runLoad } from './load.ts';
export {
  CAPACITY_ANNOTATION,
  commandModel,
  INFERENCE_ANNOTATION,
  type InferencePodSimulator,
  MODEL_ANNOTATION,
  PORT_ANNOTATION,
  registerInferencePods,
  type ServedModel,
  servedModel,
  servingAnnotations,
} from './pods.ts';
export { type InferenceServer, type InferenceServerOptions, startInferenceServer } from './server.ts';

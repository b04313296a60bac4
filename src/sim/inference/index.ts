// The vLLM-compatible inference simulator: one HTTP server per simulated serving pod (docs/autoscaling.md,
// "The inference simulator").
export { type CapacityModel, DEFAULT_CAPACITY, type GenerationResult, InferenceEngine } from './engine.ts';
export { type InferenceServer, type InferenceServerOptions, startInferenceServer } from './server.ts';

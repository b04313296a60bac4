// The simulated Llama Stack server and the dev-cluster controller that runs one per LlamaStackDistribution pod.
export {
  clusterUrlResolver,
  LLAMASTACK_SIM_CONTROLLER,
  registerLlamaStackSimulator,
  type ServiceEndpointRegistry,
} from './pods.ts';
export {
  type SimLlamaStackOptions,
  type SimLlamaStackServer,
  startSimLlamaStackServer,
  substituteEnv,
} from './server.ts';

// llm-d's InferencePool (docs/kubeairunway.md, "llm-d" and "Gateway"): the vLLM pods of a deployment as one
// pool (`<name>-pool`, the pods' selector, port 8000) that the Gateway routes to through the endpoint
// picker `<name>-epp`. The provider creates it while the cluster serves inference.networking.k8s.io/v1 and
// the deployment does not turn the gateway off; the gateway controller routes the deployment to it.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { INFERENCE_POOL_GROUP, InferencePools } from '../../gateway/kinds.ts';
import type { OptionalObject } from '../../provider/definition.ts';
import { modelLabels } from '../common/index.ts';
import { selector, VLLM_PORT } from './transform.ts';

/** the endpoint picker's gRPC port, as the Inference Extension's own picker listens */
export const EPP_PORT = 9002;

export const poolName = (md: Pick<ModelDeployment, 'metadata'>) => `${md.metadata.name}-pool`;

export function vllmInferencePoolFor(md: ModelDeployment): KubeObject | undefined {
  if (md.spec.gateway?.enabled === false) return undefined;
  return {
    apiVersion: InferencePools.apiVersion,
    kind: InferencePools.kind,
    metadata: { name: poolName(md), namespace: md.metadata.namespace, labels: modelLabels(md) },
    spec: {
      selector: { matchLabels: selector(md) },
      targetPorts: [{ number: VLLM_PORT }],
      // without a running picker the Gateway still routes (FailOpen): modelplane does not build one yet
      endpointPickerRef: { name: `${md.metadata.name}-epp`, port: { number: EPP_PORT }, failureMode: 'FailOpen' },
    },
  };
}

export const inferencePoolObject: OptionalObject = {
  kind: InferencePools as OptionalObject['kind'],
  resource: { group: INFERENCE_POOL_GROUP, resource: 'inferencepools' },
  name: poolName,
  build: vllmInferencePoolFor,
};

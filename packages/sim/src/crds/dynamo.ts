// NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1): one graph of services (frontend, workers,
// planner, EPP), each a DynamoComponentDeployment spec that is kept open.

import { age, arr, conditionColumn, conditions, crd, int, int32, mapOf, obj, open, str } from './schema.ts';

export function dynamoGraphDeploymentCrd() {
  const service = open({
    componentType: str(),
    subComponentType: str(),
    replicas: int32(),
    dynamoNamespace: str(),
    envFromSecret: str(),
    resources: open({ requests: open(), limits: open() }),
    extraPodSpec: open({ mainContainer: open() }),
    multinode: open({ nodeCount: int32() }),
  });
  const serviceStatus = open({
    componentKind: str(),
    componentName: str(),
    replicas: int32(),
    updatedReplicas: int32(),
    readyReplicas: int32(),
    availableReplicas: int32(),
  });
  return crd({
    group: 'nvidia.com',
    kind: 'DynamoGraphDeployment',
    plural: 'dynamographdeployments',
    shortNames: ['dgd'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.4' },
    versions: [
      {
        name: 'v1alpha1',
        storage: true,
        properties: {
          spec: open({
            backendFramework: str({ enum: ['sglang', 'vllm', 'trtllm'] }),
            dynamoGraph: str(),
            envs: arr(open({ name: str() }, { required: ['name'] })),
            services: mapOf(service),
            pvcs: arr(open()),
          }),
          status: open({
            state: str(),
            message: str(),
            conditions: conditions(),
            services: mapOf(serviceStatus),
            observedGeneration: int({ format: 'int64' }),
            endpoint: obj({ service: str(), port: int32() }),
          }),
        },
        columns: [
          conditionColumn('Ready'),
          { name: 'State', type: 'string', jsonPath: '.status.state' },
          { name: 'Backend', type: 'string', jsonPath: '.spec.backendFramework' },
          age(),
        ],
      },
    ],
  });
}

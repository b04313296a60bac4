// KubeRay's RayCluster and RayService (ray.io/v1). Pod templates and rayStartParams follow the real
// schema's shape; the template bodies are kept open.

import {
  arr,
  bool,
  conditions,
  crd,
  int,
  int32,
  mapOf,
  obj,
  open,
  quantity,
  type Schema,
  str,
  stringMap,
} from './schema.ts';

const rayClusterSpec = (): Schema =>
  open({
    rayVersion: str(),
    enableInTreeAutoscaling: bool(),
    suspend: bool(),
    managedBy: str(),
    headServiceAnnotations: stringMap(),
    autoscalerOptions: open(),
    headGroupSpec: open({
      rayStartParams: stringMap(),
      serviceType: str(),
      enableIngress: bool(),
      headService: open(),
      template: open(),
    }),
    workerGroupSpecs: arr(
      open(
        {
          groupName: str(),
          replicas: int32(),
          minReplicas: int32(),
          maxReplicas: int32(),
          numOfHosts: int32({ default: 1 }),
          suspend: bool(),
          rayStartParams: stringMap(),
          template: open(),
          scaleStrategy: open(),
        },
        { required: ['groupName'] },
      ),
    ),
  });

const rayClusterStatus = (): Schema =>
  open({
    state: str(),
    reason: str(),
    conditions: conditions(),
    desiredCPU: quantity(),
    desiredMemory: quantity(),
    desiredGPU: quantity(),
    desiredTPU: quantity(),
    desiredWorkerReplicas: int32(),
    availableWorkerReplicas: int32(),
    readyWorkerReplicas: int32(),
    minWorkerReplicas: int32(),
    maxWorkerReplicas: int32(),
    head: obj({ podIP: str(), serviceIP: str(), podName: str(), serviceName: str() }),
    endpoints: stringMap(),
    lastUpdateTime: str(),
    observedGeneration: int({ format: 'int64' }),
  });

export function rayClusterCrd() {
  return crd({
    group: 'ray.io',
    kind: 'RayCluster',
    plural: 'rayclusters',
    categories: ['all'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.4' },
    versions: [
      {
        name: 'v1',
        storage: true,
        properties: { spec: rayClusterSpec(), status: rayClusterStatus() },
        columns: [
          { name: 'desired workers', type: 'integer', jsonPath: '.status.desiredWorkerReplicas' },
          { name: 'available workers', type: 'integer', jsonPath: '.status.availableWorkerReplicas' },
          { name: 'cpus', type: 'string', jsonPath: '.status.desiredCPU' },
          { name: 'memory', type: 'string', jsonPath: '.status.desiredMemory' },
          { name: 'gpus', type: 'string', jsonPath: '.status.desiredGPU' },
          { name: 'tpus', type: 'string', jsonPath: '.status.desiredTPU', priority: 1 },
          { name: 'status', type: 'string', jsonPath: '.status.state' },
          { name: 'age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          { name: 'head pod IP', type: 'string', jsonPath: '.status.head.podIP', priority: 1 },
          { name: 'head service IP', type: 'string', jsonPath: '.status.head.serviceIP', priority: 1 },
        ],
      },
    ],
  });
}

const serveDeploymentStatus = () => open({ status: str(), message: str(), healthLastUpdateTime: str() });
const appStatus = () =>
  open({
    status: str(),
    message: str(),
    healthLastUpdateTime: str(),
    serveDeploymentStatuses: mapOf(serveDeploymentStatus()),
  });
const serviceStatusDetail = () =>
  open({ rayClusterName: str(), rayClusterStatus: rayClusterStatus(), applicationStatuses: mapOf(appStatus()) });

export function rayServiceCrd() {
  return crd({
    group: 'ray.io',
    kind: 'RayService',
    plural: 'rayservices',
    categories: ['all'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.4' },
    versions: [
      {
        name: 'v1',
        storage: true,
        properties: {
          spec: open({
            serveConfigV2: str(),
            rayClusterConfig: rayClusterSpec(),
            excludeHeadPodFromServeSvc: bool(),
            serveService: open(),
            upgradeStrategy: open({ type: str() }),
            serviceUnhealthySecondThreshold: int32(),
            deploymentUnhealthySecondThreshold: int32(),
          }),
          status: open({
            serviceStatus: str(),
            numServeEndpoints: int32(),
            conditions: conditions(),
            activeServiceStatus: serviceStatusDetail(),
            pendingServiceStatus: serviceStatusDetail(),
            observedGeneration: int({ format: 'int64' }),
            lastUpdateTime: str(),
          }),
        },
        columns: [
          { name: 'service status', type: 'string', jsonPath: '.status.serviceStatus' },
          { name: 'num serve endpoints', type: 'integer', jsonPath: '.status.numServeEndpoints' },
          { name: 'age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
  });
}

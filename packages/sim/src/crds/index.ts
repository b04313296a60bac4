// The CRDs of the external projects modelplane's controllers drive, with their real group, version,
// kind, names, scope, short names, categories and printer columns. `modelplane dev` installs them like
// any other CRD; on a real cluster the projects' own charts install the originals.

import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import { dynamoGraphDeploymentCrd } from './dynamo.ts';
import { gatewayClassCrd, gatewayCrd, httpRouteCrd, referenceGrantCrd } from './gateway-api.ts';
import { inferencePoolCrd } from './inference-pool.ts';
import { workspaceCrd } from './kaito.ts';
import { scaledObjectCrd } from './keda.ts';
import { inferenceServiceCrd } from './kserve.ts';
import { rayClusterCrd, rayServiceCrd } from './kuberay.ts';

export {
  dynamoGraphDeploymentCrd,
  gatewayClassCrd,
  gatewayCrd,
  httpRouteCrd,
  inferencePoolCrd,
  inferenceServiceCrd,
  rayClusterCrd,
  rayServiceCrd,
  referenceGrantCrd,
  scaledObjectCrd,
  workspaceCrd,
};

export function externalCrds(): CustomResourceDefinition[] {
  return [
    inferenceServiceCrd(),
    gatewayClassCrd(),
    gatewayCrd(),
    httpRouteCrd(),
    referenceGrantCrd(),
    inferencePoolCrd(),
    workspaceCrd(),
    dynamoGraphDeploymentCrd(),
    rayClusterCrd(),
    rayServiceCrd(),
    scaledObjectCrd(),
  ];
}

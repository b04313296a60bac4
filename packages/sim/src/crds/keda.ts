// KEDA's ScaledObject (keda.sh/v1alpha1): scales a Deployment (through an HPA KEDA owns) on external
// metrics. Triggers and advanced HPA settings are kept open.

import { age, arr, conditionColumn, conditions, crd, int32, obj, open, str, stringMap, strings } from './schema.ts';

export function scaledObjectCrd() {
  return crd({
    group: 'keda.sh',
    kind: 'ScaledObject',
    plural: 'scaledobjects',
    shortNames: ['so'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.15.0' },
    versions: [
      {
        name: 'v1alpha1',
        storage: true,
        properties: {
          spec: open(
            {
              scaleTargetRef: obj(
                { apiVersion: str(), kind: str(), name: str(), envSourceContainerName: str() },
                { required: ['name'] },
              ),
              minReplicaCount: int32(),
              maxReplicaCount: int32(),
              idleReplicaCount: int32(),
              pollingInterval: int32(),
              cooldownPeriod: int32(),
              initialCooldownPeriod: int32(),
              triggers: arr(
                open(
                  { type: str(), name: str(), metadata: stringMap(), authenticationRef: open({ name: str() }) },
                  { required: ['type'] },
                ),
              ),
              advanced: open(),
              fallback: open(),
            },
            { required: ['scaleTargetRef', 'triggers'] },
          ),
          status: open({
            scaleTargetKind: str(),
            scaleTargetGVKR: open(),
            originalReplicaCount: int32(),
            lastActiveTime: str(),
            externalMetricNames: strings(),
            resourceMetricNames: strings(),
            hpaName: str(),
            conditions: conditions(),
            health: open(),
            pausedReplicaCount: int32(),
          }),
        },
        required: ['spec'],
        columns: [
          { name: 'ScaleTargetKind', type: 'string', jsonPath: '.status.scaleTargetKind' },
          { name: 'ScaleTargetName', type: 'string', jsonPath: '.spec.scaleTargetRef.name' },
          { name: 'Min', type: 'integer', jsonPath: '.spec.minReplicaCount' },
          { name: 'Max', type: 'integer', jsonPath: '.spec.maxReplicaCount' },
          { name: 'Triggers', type: 'string', jsonPath: '.spec.triggers[*].type' },
          { name: 'Authentication', type: 'string', jsonPath: '.spec.triggers[*].authenticationRef.name' },
          conditionColumn('Ready'),
          conditionColumn('Active'),
          conditionColumn('Fallback'),
          age(),
        ],
      },
    ],
  });
}

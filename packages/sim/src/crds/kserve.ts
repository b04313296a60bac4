// KServe's InferenceService (serving.kserve.io/v1beta1). The component specs (predictor, transformer,
// explainer) are a PodSpec plus a dozen model-server forms; they are kept open.

import { age, crd, int, knativeConditions, obj, open, str, stringMap } from './schema.ts';

const component = () =>
  open({
    minReplicas: int(),
    maxReplicas: int(),
    labels: stringMap(),
    annotations: stringMap(),
  });

const address = () => obj({ url: str(), name: str(), CACerts: str(), audience: str() });

export function inferenceServiceCrd() {
  return crd({
    group: 'serving.kserve.io',
    kind: 'InferenceService',
    plural: 'inferenceservices',
    shortNames: ['isvc'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.2' },
    versions: [
      {
        name: 'v1beta1',
        storage: true,
        properties: {
          spec: obj(
            { predictor: component(), transformer: component(), explainer: component() },
            { required: ['predictor'] },
          ),
          status: obj({
            observedGeneration: int({ format: 'int64' }),
            conditions: knativeConditions(),
            annotations: stringMap(),
            url: str(),
            address: address(),
            components: open(),
            modelStatus: open({
              transitionStatus: str(),
              states: obj({ activeModelState: str(), targetModelState: str() }),
              copies: obj({ failedCopies: int(), totalCopies: int() }),
              lastFailureInfo: open({
                reason: str(),
                location: str(),
                message: str(),
                modelRevisionName: str(),
                time: str(),
                exitCode: int(),
              }),
            }),
            deploymentMode: str(),
            servingRuntimeName: str(),
            clusterServingRuntimeName: str(),
          }),
        },
        columns: [
          { name: 'URL', type: 'string', jsonPath: '.status.url' },
          { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
          { name: 'Prev', type: 'integer', jsonPath: ".status.components.predictor.traffic[?(@.tag=='prev')].percent" },
          {
            name: 'Latest',
            type: 'integer',
            jsonPath: '.status.components.predictor.traffic[?(@.latestRevision==true)].percent',
          },
          {
            name: 'PrevRolledoutRevision',
            type: 'string',
            jsonPath: ".status.components.predictor.traffic[?(@.tag=='prev')].revisionName",
            priority: 1,
          },
          {
            name: 'LatestReadyRevision',
            type: 'string',
            jsonPath: '.status.components.predictor.traffic[?(@.latestRevision==true)].revisionName',
            priority: 1,
          },
          age(),
        ],
      },
    ],
  });
}

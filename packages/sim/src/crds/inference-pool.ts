// The Gateway API Inference Extension's InferencePool (inference.networking.k8s.io/v1): a set of model
// server pods (label selector, target port) a Gateway routes to through an endpoint picker. The fields
// modelplane writes and the gateway simulator reads are typed; the rest is kept.
import { age, arr, conditions, crd, int32, obj, open, str, stringMap } from './schema.ts';

// kube-apiserver refuses a CRD of a *.k8s.io group without the API review's approval annotation, which the
// published Inference Extension CRDs carry (docs/real-kubernetes.md)
const BUNDLE = {
  'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/1173',
  'inference.networking.k8s.io/bundle-version': 'v1.0.1',
};

export function inferencePoolCrd() {
  return crd({
    group: 'inference.networking.k8s.io',
    kind: 'InferencePool',
    plural: 'inferencepools',
    scope: 'Namespaced',
    annotations: BUNDLE,
    versions: [
      {
        name: 'v1',
        storage: true,
        properties: {
          spec: open(
            {
              selector: obj({ matchLabels: stringMap() }, { required: ['matchLabels'] }),
              targetPorts: arr(obj({ number: int32() }, { required: ['number'] })),
              appProtocol: str(),
              endpointPickerRef: open(
                {
                  group: str({ default: '' }),
                  kind: str({ default: 'Service' }),
                  name: str(),
                  port: obj({ number: int32() }, { required: ['number'] }),
                  failureMode: str({ default: 'FailClose' }),
                },
                { required: ['name'] },
              ),
            },
            { required: ['selector', 'targetPorts', 'endpointPickerRef'] },
          ),
          status: obj({
            parents: arr(
              obj(
                {
                  parentRef: open({ group: str(), kind: str(), name: str(), namespace: str() }),
                  conditions: conditions(),
                },
                { required: ['parentRef'] },
              ),
            ),
          }),
        },
        required: ['spec'],
        columns: [age()],
      },
    ],
  });
}

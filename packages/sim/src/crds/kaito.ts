// KAITO's Workspace (kaito.sh/v1beta1). Note that `resource`, `inference` and `tuning` sit at the root
// of the object, not under a spec.

import { age, conditionColumn, conditions, crd, int, labelSelector, open, str, strings } from './schema.ts';

export function workspaceCrd() {
  return crd({
    group: 'kaito.sh',
    kind: 'Workspace',
    plural: 'workspaces',
    shortNames: ['wk', 'wks'],
    categories: ['workspace'],
    scope: 'Namespaced',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.15.0' },
    versions: [
      {
        name: 'v1beta1',
        storage: true,
        properties: {
          resource: open({
            count: int({ default: 1 }),
            instanceType: str(),
            labelSelector: labelSelector(),
            preferredNodes: strings(),
          }),
          inference: open({
            preset: open(
              {
                name: str(),
                accessMode: str({ default: 'public', enum: ['public', 'private'] }),
                presetOptions: open({ image: str(), imagePullSecrets: strings(), modelAccessSecret: str() }),
              },
              { required: ['name'] },
            ),
            template: open(),
            config: str(),
          }),
          tuning: open(),
          status: open({ conditions: conditions(), workerNodes: strings(), state: str(), targetNodeCount: int() }),
        },
        columns: [
          { name: 'Instance', type: 'string', jsonPath: '.resource.instanceType' },
          conditionColumn('ResourceReady'),
          conditionColumn('InferenceReady'),
          conditionColumn('JobStarted'),
          conditionColumn('WorkspaceSucceeded'),
          age(),
        ],
      },
    ],
  });
}

// The simulated upstream operators as the cluster sees them: a Deployment per operator, in its usual
// namespace and with its Helm chart's labels, whose pod the workload simulators run like any other. The
// operators themselves are controllers in the dev process (operators/); these Deployments are what a
// KubeAIRunway provider looks at to tell whether its operator runs (docs/kubeairunway.md, "Provider
// readiness and heartbeats"). Scaling one to 0 makes its provider not ready, as on a cluster.
import type { KubeObject } from '@modelplane/runtime/meta';

interface SimOperator {
  namespace: string;
  name: string;
  /** the `app.kubernetes.io/name` label of the upstream Helm chart */
  appName: string;
  image: string;
}

export const SIM_OPERATORS: readonly SimOperator[] = [
  {
    namespace: 'kuberay-system',
    name: 'kuberay-operator',
    appName: 'kuberay-operator',
    image: 'quay.io/kuberay/operator:v1.4.2',
  },
  {
    namespace: 'kaito-workspace',
    name: 'kaito-workspace',
    appName: 'workspace',
    image: 'mcr.microsoft.com/aks/kaito/workspace:0.6.0',
  },
  {
    namespace: 'dynamo-system',
    name: 'dynamo-operator-controller-manager',
    appName: 'dynamo-operator',
    image: 'nvcr.io/nvidia/ai-dynamo/kubernetes-operator:0.4.1',
  },
];

/** Namespaces and Deployments, in apply order */
export function simOperatorObjects(): KubeObject[] {
  const out: KubeObject[] = [];
  for (const op of SIM_OPERATORS) {
    const labels = { 'app.kubernetes.io/name': op.appName, 'app.kubernetes.io/component': 'operator' };
    out.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: op.namespace } });
    out.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: op.name, namespace: op.namespace, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'manager',
                image: op.image,
                resources: { requests: { cpu: '50m', memory: '64Mi' } },
              },
            ],
          },
        },
      },
    } as KubeObject);
  }
  return out;
}

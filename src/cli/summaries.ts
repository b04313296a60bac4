// What each `modelplane` command does, in one place: `modelplane --help` lists these without loading any command's
// module (src/cli/main.ts), and each command's own --help shows the same text.
export const COMMAND_SUMMARIES = {
  dev: 'Start the embedded Kubernetes-compatible cluster (API server, controllers, simulators) and apply the quickstart examples.',
  run: 'Run the operator against a cluster: the chosen controllers, with metrics and health probes.',
  provider:
    'Run one KubeAIRunway provider controller: it registers its InferenceProviderConfig, heartbeats, and builds the upstream resource of every ModelDeployment assigned to it.',
  crds: "Print every CustomResourceDefinition modelplane serves, as multi-document YAML (pipe into 'kubectl apply -f -').",
  rbac: 'Print the least-privilege RBAC (ServiceAccount, ClusterRole, bindings, leader-election Role) of each controller set, as YAML.',
  render:
    'Print, without a cluster, the objects the controllers would create for the AIMServices and ModelDeployments in a file.',
  status:
    "Print every AIMService, ModelDeployment, LlamaStackDistribution, VariantAutoscaling (and the rest of modelplane's kinds) with its state and reason, one line each.",
  explain:
    "Walk an AIMService's chain (service → model → template → cache → artifact → pods) and print, in one paragraph, the first thing that is not ready and why.",
  dashboard: 'Serve the web dashboard of every modelplane resource of a cluster, read with your own credentials.',
  chart:
    "Write the generated files of the Helm chart (crds/modelplane.yaml, files/controller-sets.yaml): the CRDs and every controller set's RBAC rules.",
  load: "Send chat-completion load to vLLM-compatible servers: a Service's ready pods (re-read every second, so new replicas get load) or fixed URLs; prints a JSON summary.",
} as const;

export type CommandName = keyof typeof COMMAND_SUMMARIES;

// The built-in kinds the operator and its users touch, with the names, scope and subresources
// kube-apiserver 1.32 serves for them. Their table columns and defaults live in ../builtin/.
import type { Generation, ResourceType } from './resource-type.ts';

interface BuiltinSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  log?: boolean;
  token?: boolean;
  /** storage shared with another group's view of the same objects */
  storageKey?: string;
  /** verbs served when not all (the review kinds are create-only and store nothing) */
  verbs?: string[];
  /** how the kind's strategy keeps metadata.generation (absent: it has none, like Pods, Services and ConfigMaps in 1.32) */
  generation?: Generation;
  statusWritesAnnotations?: boolean;
}

const specs: BuiltinSpec[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
  },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    status: true,
  },
  {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
    token: true,
  },
  {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    log: true,
  },
  {
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    storageKey: 'events',
  },
  {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    shortNames: ['pvc'],
    status: true,
  },
  {
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    namespaced: false,
    shortNames: ['pv'],
    status: true,
  },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, shortNames: ['no'], status: true },
  { group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', namespaced: true, shortNames: ['ep'] },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: 'spec+annotations',
    statusWritesAnnotations: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: 'spec',
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    categories: ['all'],
    status: true,
    generation: 'spec',
  },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
  {
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    storageKey: 'events',
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    generation: 'spec',
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    generation: 'spec',
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    status: true,
    generation: 'spec',
  },
  {
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    status: true,
    generation: 'spec',
  },
  {
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    shortNames: ['pdb'],
    status: true,
    generation: 'spec',
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    shortNames: ['ing'],
    status: true,
    generation: 'spec',
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    namespaced: true,
    shortNames: ['netpol'],
    generation: 'spec',
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    plural: 'storageclasses',
    namespaced: false,
    shortNames: ['sc'],
  },
  // Virtual kinds: answered by auth/ (reviews, token review), never stored.
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    plural: 'selfsubjectreviews',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'LocalSubjectAccessReview',
    plural: 'localsubjectaccessreviews',
    namespaced: true,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectAccessReview',
    plural: 'selfsubjectaccessreviews',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    plural: 'selfsubjectrulesreviews',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SubjectAccessReview',
    plural: 'subjectaccessreviews',
    namespaced: false,
    verbs: ['create'],
  },
];

function singularOf(kind: string): string {
  return kind.toLowerCase();
}

export function builtinResourceTypes(): ResourceType[] {
  return specs.map((s) => ({
    group: s.group,
    plural: s.plural,
    singular: singularOf(s.kind),
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    versions: [{ name: s.version, served: true, storage: true }],
    subresources: {
      status: s.status ?? false,
      ...(s.scale
        ? {
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          }
        : {}),
      ...(s.log ? { log: true } : {}),
      ...(s.token ? { token: true } : {}),
    },
    builtin: true,
    storageKey: s.storageKey ?? `${s.group}/${s.plural}`,
    ...(s.verbs ? { verbs: s.verbs } : {}),
    ...(s.generation ? { generation: s.generation } : {}),
    ...(s.statusWritesAnnotations ? { statusWritesAnnotations: true } : {}),
  }));
}

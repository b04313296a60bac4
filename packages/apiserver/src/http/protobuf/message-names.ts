// Which API kinds the protobuf decoder knows, and the short names messages.ts uses for protobuf packages.

/** apiVersion → the short package name of its messages in messages.ts */
export const API_PACKAGES: Readonly<Record<string, string>> = {
  v1: 'core/v1',
  'apps/v1': 'apps/v1',
  'batch/v1': 'batch/v1',
  'rbac.authorization.k8s.io/v1': 'rbac/v1',
  'policy/v1': 'policy/v1',
  'networking.k8s.io/v1': 'networking/v1',
  'scheduling.k8s.io/v1': 'scheduling/v1',
  'authentication.k8s.io/v1': 'authentication/v1',
  'authorization.k8s.io/v1': 'authorization/v1',
  'autoscaling/v1': 'autoscaling/v1',
  'autoscaling/v2': 'autoscaling/v2',
  'certificates.k8s.io/v1': 'certificates/v1',
  'coordination.k8s.io/v1': 'coordination/v1',
  'events.k8s.io/v1': 'events/v1',
  'storage.k8s.io/v1': 'storage/v1',
  'admissionregistration.k8s.io/v1': 'admissionregistration/v1',
  'meta.k8s.io/v1': 'meta/v1',
};

/**
 * The kinds kubectl 1.32 sends through typed clients (and so as protobuf): the `kubectl create` generators,
 * `create token`, `auth can-i|whoami`, `autoscale`, `drain` (Eviction), `certificate approve|deny`, `run`/`debug`
 * pods. DeleteOptions (the body of a typed DELETE) is accepted under any apiVersion.
 */
export const KINDS: Readonly<Record<string, readonly string[]>> = {
  v1: ['ConfigMap', 'Namespace', 'Pod', 'ResourceQuota', 'Secret', 'Service', 'ServiceAccount'],
  'apps/v1': ['Deployment'],
  'batch/v1': ['CronJob', 'Job'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'policy/v1': ['Eviction', 'PodDisruptionBudget'],
  'networking.k8s.io/v1': ['Ingress'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'authentication.k8s.io/v1': ['SelfSubjectReview', 'TokenRequest', 'TokenReview'],
  'authorization.k8s.io/v1': [
    'LocalSubjectAccessReview',
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SubjectAccessReview',
  ],
  'autoscaling/v1': ['HorizontalPodAutoscaler'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'certificates.k8s.io/v1': ['CertificateSigningRequest'],
};

export const DELETE_OPTIONS = 'meta/v1.DeleteOptions';

/**
 * The kinds kube-apiserver answers in protobuf when a client asks for it (typed Go clients such as kubectl's send
 * `Accept: application/vnd.kubernetes.protobuf,application/json`): every built-in kind this server serves, its
 * list, Scale, and the meta.k8s.io kinds of errors, metadata-only views and watch events. Status goes out under
 * apiVersion v1, as kube-apiserver writes it in every group. CustomResourceDefinitions are missing: kubectl does
 * not carry the apiextensions descriptors this table is generated from, so they negotiate like custom resources.
 */
export const RESPONSE_KINDS: Readonly<Record<string, readonly string[]>> = {
  v1: [
    'ConfigMap',
    'Endpoints',
    'Event',
    'Namespace',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Pod',
    'Secret',
    'Service',
    'ServiceAccount',
  ],
  'apps/v1': ['Deployment', 'ReplicaSet'],
  'batch/v1': ['Job'],
  'coordination.k8s.io/v1': ['Lease'],
  'events.k8s.io/v1': ['Event'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'admissionregistration.k8s.io/v1': ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'autoscaling/v1': ['Scale'],
  'policy/v1': ['PodDisruptionBudget'],
  'networking.k8s.io/v1': ['Ingress', 'NetworkPolicy'],
  'storage.k8s.io/v1': ['StorageClass'],
  'meta.k8s.io/v1': ['PartialObjectMetadata', 'PartialObjectMetadataList', 'Status', 'WatchEvent'],
};

/** Kinds of RESPONSE_KINDS that also have a `<Kind>List` message (the others are lists already, or never listed). */
const UNLISTED = new Set(['Scale', 'PartialObjectMetadata', 'PartialObjectMetadataList', 'Status', 'WatchEvent']);

/** Messages with their own JSON form (custom MarshalJSON in Go); decoded by special-messages.ts. */
export const SPECIAL_MESSAGES: ReadonlySet<string> = new Set([
  'meta/v1.Time',
  'meta/v1.MicroTime',
  'meta/v1.Duration',
  'meta/v1.FieldsV1',
  'resource.Quantity',
  'intstr.IntOrString',
  'runtime.RawExtension',
]);

const PREFIXES: [string, string][] = [
  ['.k8s.io.apimachinery.pkg.apis.meta.v1.', 'meta/v1.'],
  ['.k8s.io.apimachinery.pkg.api.resource.', 'resource.'],
  ['.k8s.io.apimachinery.pkg.util.intstr.', 'intstr.'],
  ['.k8s.io.apimachinery.pkg.runtime.schema.', 'schema.'],
  ['.k8s.io.apimachinery.pkg.runtime.', 'runtime.'],
];

/** ".k8s.io.api.core.v1.Container" → "core/v1.Container"; ".k8s.io.apimachinery.pkg.apis.meta.v1.Time" → "meta/v1.Time" */
export function protoToShort(full: string): string {
  for (const [prefix, short] of PREFIXES) if (full.startsWith(prefix)) return short + full.slice(prefix.length);
  const m = /^\.k8s\.io\.api\.([a-z0-9]+)\.([a-z0-9]+)\.(.+)$/.exec(full);
  if (!m) throw new Error(`no short name for protobuf message ${full}`);
  return `${m[1]}/${m[2]}.${m[3]}`;
}

/** Full protobuf names of the top-level messages (generate-messages.ts starts from these). */
export const ROOT_MESSAGES: readonly string[] = [
  ...Object.entries(KINDS).flatMap(([apiVersion, kinds]) => kinds.map((k) => fullName(apiVersion, k))),
  ...Object.entries(RESPONSE_KINDS).flatMap(([apiVersion, kinds]) =>
    kinds.flatMap((k) => [fullName(apiVersion, k), ...(UNLISTED.has(k) ? [] : [fullName(apiVersion, `${k}List`)])]),
  ),
  'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
];

function fullName(apiVersion: string, kind: string): string {
  const pkg = API_PACKAGES[apiVersion]!;
  if (pkg === 'meta/v1') return `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`;
  return `k8s.io.api.${pkg.replace('/', '.')}.${kind}`;
}

// Patch schemas of the built-in kinds the embedded server serves. Only fields whose merge behaviour
// differs from the default (open struct: nested objects merge field by field, lists are replaced)
// are declared, plus the non-pointer structs that exist in a Go zero value, because those decide
// which fields a create records as newly added (the `".": {}` entries of managedFields).
import {
  atomicMergeList,
  conditionsByType,
  labelSelector,
  persistentVolumeClaimSpec,
  podSpec,
  podStatus,
  podTemplateSpec,
} from './builtin-pod.ts';
import {
  atomicList,
  atomicMap,
  mapList,
  mapOf,
  objectMetaSchema,
  objectSchema,
  type PatchSchema,
  SCALAR,
  type StructSchema,
  setList,
  struct,
  zero,
} from './schema.ts';

function withSpecStatus(
  spec: StructSchema,
  status: StructSchema = struct({}),
  extra: Record<string, PatchSchema> = {},
): StructSchema {
  return objectSchema({ spec: zero(spec), status: zero(status), ...extra });
}

const selectorOrNull = zero(labelSelector, 'null');

const deploymentSpec = struct({
  selector: selectorOrNull,
  template: podTemplateSpec,
  strategy: zero(struct({ rollingUpdate: struct({}) }, { patchStrategy: 'retainKeys' })),
});
const workloadStatus = struct({ conditions: conditionsByType });

const jobSpec = struct({
  selector: labelSelector,
  template: podTemplateSpec,
  podFailurePolicy: struct({ rules: atomicList() }),
  successPolicy: struct({ rules: atomicList() }),
});

const serviceSpec = struct({
  ports: mapList(['port', 'protocol'], struct({}), { keyDefaults: { protocol: 'TCP' } }),
  selector: atomicMap(),
  clusterIPs: atomicList(SCALAR),
  externalIPs: atomicList(SCALAR),
  loadBalancerSourceRanges: atomicList(SCALAR),
  ipFamilies: atomicList(SCALAR),
  sessionAffinityConfig: struct({ clientIP: struct({}) }),
});
const loadBalancerStatus = zero(struct({ ingress: atomicList() }));

const webhook = struct({
  clientConfig: struct({ service: struct({}) }),
  rules: atomicList(),
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  admissionReviewVersions: atomicList(SCALAR),
  matchConditions: mapList(['name'], struct({})),
});
const webhookConfiguration = objectSchema({ webhooks: mapList(['name'], webhook) });

const crdNames = struct({ shortNames: atomicList(SCALAR), categories: atomicList(SCALAR) });
const crd = withSpecStatus(
  struct({
    names: zero(crdNames),
    versions: zero(atomicList(), 'null'),
    conversion: struct({
      webhook: struct({ clientConfig: struct({ service: struct({}) }), conversionReviewVersions: atomicList(SCALAR) }),
    }),
  }),
  struct({
    conditions: conditionsByType,
    acceptedNames: zero(crdNames),
    storedVersions: zero(atomicList(SCALAR), 'null'),
  }),
);

const hpaV2 = withSpecStatus(
  struct({
    scaleTargetRef: zero(struct({})),
    metrics: atomicList(),
    behavior: struct({ scaleUp: struct({ policies: atomicList() }), scaleDown: struct({ policies: atomicList() }) }),
  }),
  struct({ conditions: conditionsByType, currentMetrics: atomicList() }),
);

const roleRules = { rules: zero(atomicList(), 'null') };
const binding = objectSchema({ subjects: atomicList(), roleRef: zero(struct({})) });

const ingressLoadBalancer = zero(struct({ loadBalancer: loadBalancerStatus }));

/** Schemas by `group/kind`; the same schema serves every version the kind is offered in. */
const KINDS: Record<string, StructSchema> = {
  '/Pod': withSpecStatus(podSpec, podStatus),
  '/PodTemplate': objectSchema({ template: podTemplateSpec }),
  '/ReplicationController': withSpecStatus(
    struct({ selector: atomicMap(), template: { ...podTemplateSpec, zero: undefined } }),
    workloadStatus,
  ),
  '/Service': withSpecStatus(serviceSpec, struct({ loadBalancer: loadBalancerStatus, conditions: conditionsByType })),
  '/Endpoints': objectSchema({ subsets: atomicList() }),
  '/ConfigMap': objectSchema({ data: mapOf(SCALAR), binaryData: mapOf(SCALAR) }),
  '/Secret': objectSchema({ data: mapOf(SCALAR), stringData: mapOf(SCALAR) }),
  '/Namespace': withSpecStatus(struct({ finalizers: atomicList(SCALAR) }), struct({ conditions: conditionsByType })),
  '/Node': withSpecStatus(
    struct({ taints: atomicList(), podCIDRs: setList(true) }),
    struct({
      conditions: conditionsByType,
      addresses: atomicMergeList('type'),
      capacity: mapOf(SCALAR),
      allocatable: mapOf(SCALAR),
      images: atomicList(),
      volumesInUse: atomicList(SCALAR),
      volumesAttached: atomicList(),
      daemonEndpoints: zero(struct({ kubeletEndpoint: zero(struct({})) })),
      nodeInfo: zero(struct({})),
    }),
  ),
  '/Event': objectSchema({
    involvedObject: zero(struct({})),
    source: zero(struct({})),
    related: struct({}),
    series: struct({}),
  }),
  '/PersistentVolumeClaim': withSpecStatus(
    persistentVolumeClaimSpec,
    struct({
      conditions: conditionsByType,
      accessModes: atomicList(SCALAR),
      capacity: mapOf(SCALAR),
      allocatedResources: mapOf(SCALAR),
      allocatedResourceStatuses: mapOf(SCALAR),
    }),
  ),
  '/PersistentVolume': withSpecStatus(
    struct({
      accessModes: atomicList(SCALAR),
      capacity: mapOf(SCALAR),
      claimRef: struct({}),
      mountOptions: atomicList(SCALAR),
      nodeAffinity: struct({ required: struct({}, { mapType: 'atomic' }) }),
    }),
  ),
  '/ServiceAccount': objectSchema({ secrets: mapList(['name'], struct({})), imagePullSecrets: atomicList() }),
  '/ResourceQuota': withSpecStatus(
    struct({ hard: mapOf(SCALAR), scopes: atomicList(SCALAR) }),
    struct({ hard: mapOf(SCALAR), used: mapOf(SCALAR) }),
  ),
  '/LimitRange': objectSchema({ spec: zero(struct({ limits: zero(atomicList(), 'null') })) }),
  'apps/Deployment': withSpecStatus(deploymentSpec, workloadStatus),
  'apps/ReplicaSet': withSpecStatus(struct({ selector: selectorOrNull, template: podTemplateSpec }), workloadStatus),
  'apps/StatefulSet': withSpecStatus(
    struct({
      selector: selectorOrNull,
      template: podTemplateSpec,
      volumeClaimTemplates: atomicList(),
      updateStrategy: zero(struct({ rollingUpdate: struct({}) })),
    }),
    workloadStatus,
  ),
  'apps/DaemonSet': withSpecStatus(
    struct({
      selector: selectorOrNull,
      template: podTemplateSpec,
      updateStrategy: zero(struct({ rollingUpdate: struct({}) })),
    }),
    workloadStatus,
  ),
  'apps/ControllerRevision': objectSchema({}),
  'batch/Job': withSpecStatus(
    jobSpec,
    struct({
      conditions: atomicMergeList('type'),
      uncountedTerminatedPods: struct({ succeeded: setList(), failed: setList() }),
    }),
  ),
  'batch/CronJob': withSpecStatus(
    struct({ jobTemplate: zero(struct({ metadata: objectMetaSchema, spec: zero(jobSpec) })) }),
    struct({ active: atomicList() }),
  ),
  'coordination.k8s.io/Lease': withSpecStatus(struct({})),
  'rbac.authorization.k8s.io/Role': objectSchema(roleRules),
  'rbac.authorization.k8s.io/ClusterRole': objectSchema({
    ...roleRules,
    aggregationRule: struct({ clusterRoleSelectors: atomicList() }),
  }),
  'rbac.authorization.k8s.io/RoleBinding': binding,
  'rbac.authorization.k8s.io/ClusterRoleBinding': binding,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookConfiguration,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookConfiguration,
  'apiextensions.k8s.io/CustomResourceDefinition': crd,
  'autoscaling/HorizontalPodAutoscaler': hpaV2,
  'policy/PodDisruptionBudget': withSpecStatus(
    struct({ selector: { ...labelSelector, patchStrategy: 'replace' } }),
    struct({ conditions: conditionsByType, disruptedPods: mapOf(SCALAR) }),
  ),
  'networking.k8s.io/Ingress': withSpecStatus(
    struct({ rules: atomicList(), tls: atomicList(), defaultBackend: struct({}) }),
    ingressLoadBalancer,
  ),
  'networking.k8s.io/IngressClass': withSpecStatus(struct({ parameters: struct({}) })),
  'networking.k8s.io/NetworkPolicy': withSpecStatus(
    struct({
      podSelector: zero(labelSelector),
      ingress: atomicList(),
      egress: atomicList(),
      policyTypes: atomicList(SCALAR),
    }),
  ),
  'discovery.k8s.io/EndpointSlice': objectSchema({ endpoints: zero(atomicList(), 'null'), ports: atomicList() }),
  'events.k8s.io/Event': objectSchema({
    regarding: zero(struct({})),
    deprecatedSource: zero(struct({})),
    related: struct({}),
    series: struct({}),
  }),
  'storage.k8s.io/StorageClass': objectSchema({
    parameters: mapOf(SCALAR),
    mountOptions: atomicList(SCALAR),
    allowedTopologies: atomicList(),
  }),
  'scheduling.k8s.io/PriorityClass': objectSchema({}),
};

/** Kinds whose schema differs between versions: `group/version/kind`. */
const VERSIONED: Record<string, StructSchema> = {
  'autoscaling/v1/HorizontalPodAutoscaler': withSpecStatus(struct({ scaleTargetRef: zero(struct({})) })),
};

/** An open object for built-in kinds this table does not list: nested objects merge, lists are replaced. */
const GENERIC = objectSchema({});

export const builtinPatchSchemas: Readonly<Record<string, StructSchema>> = KINDS;

export function patchSchemaFor(group: string, version: string, kind: string): StructSchema {
  return VERSIONED[`${group}/${version}/${kind}`] ?? KINDS[`${group}/${kind}`] ?? GENERIC;
}

// Valid objects for every kind the fuzzer targets: the starting points that mutations break, and the
// fixtures created before the run so item, status and scale paths address existing objects. Also the
// fuzz CRD: a namespaced `Gadget` with a nontrivial structural schema, CEL rules (one transition rule,
// one messageExpression) and status + scale subresources.

type Obj = Record<string, unknown>;

export const FUZZ_GROUP = 'fuzz.modelplane.dev';
export const FUZZ_CRD_NAME = `gadgets.${FUZZ_GROUP}`;
/** namespace holding the fixtures; the fuzzer never deletes it */
export const FUZZ_NAMESPACE = 'fuzz';
/** the name of the fixture object of every kind */
export const FIXTURE_NAME = 'fixture';

const podSpec = (): Obj => ({
  containers: [
    {
      name: 'main',
      image: 'registry.example.com/app:1.0',
      ports: [{ name: 'http', containerPort: 8080 }],
      env: [{ name: 'MODE', value: 'fuzz' }],
      resources: { limits: { cpu: '500m', memory: '128Mi' } },
    },
  ],
  restartPolicy: 'Always',
});

const template = (labels: Obj): Obj => ({ metadata: { labels }, spec: podSpec() });

/** spec/data part of a valid object, by `group/Kind` */
const bodies: Record<string, (name: string) => Obj> = {
  '/Namespace': () => ({}),
  '/ConfigMap': () => ({ data: { 'config.yaml': 'a: 1\n', key: 'value' }, binaryData: { blob: 'AAEC' } }),
  '/Secret': () => ({ type: 'Opaque', data: { password: 'c2VjcmV0' }, stringData: { user: 'admin' } }),
  '/Service': () => ({
    spec: {
      selector: { app: 'fuzz' },
      ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
      type: 'ClusterIP',
    },
  }),
  '/ServiceAccount': () => ({ automountServiceAccountToken: false }),
  '/Pod': () => ({ spec: podSpec() }),
  '/Event': (name) => ({
    involvedObject: { kind: 'Pod', namespace: FUZZ_NAMESPACE, name: 'p', apiVersion: 'v1' },
    reason: 'Started',
    message: `fuzz event ${name}`,
    type: 'Normal',
    count: 1,
    source: { component: 'fuzz' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
  }),
  '/PersistentVolumeClaim': () => ({
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }),
  '/PersistentVolume': () => ({
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
  }),
  '/Node': () => ({ spec: { podCIDR: '10.0.0.0/24' }, status: { capacity: { cpu: '4', memory: '8Gi' } } }),
  '/Endpoints': () => ({ subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 8080 }] }] }),
  'apps/Deployment': () => ({
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'fuzz' } },
      template: template({ app: 'fuzz' }),
      strategy: { type: 'RollingUpdate' },
    },
  }),
  'apps/ReplicaSet': () => ({
    spec: { replicas: 1, selector: { matchLabels: { app: 'fuzz-rs' } }, template: template({ app: 'fuzz-rs' }) },
  }),
  'batch/Job': () => ({ spec: { backoffLimit: 2, template: { spec: { ...podSpec(), restartPolicy: 'Never' } } } }),
  'coordination.k8s.io/Lease': () => ({
    spec: { holderIdentity: 'fuzz-holder', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' },
  }),
  'events.k8s.io/Event': () => ({
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'fuzz.modelplane.dev/fuzzer',
    reportingInstance: 'fuzz-1',
    action: 'Testing',
    reason: 'Fuzzed',
    type: 'Normal',
    note: 'a fuzz event',
    regarding: { kind: 'Pod', namespace: FUZZ_NAMESPACE, name: 'p', apiVersion: 'v1' },
  }),
  'rbac.authorization.k8s.io/Role': () => ({
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  }),
  'rbac.authorization.k8s.io/ClusterRole': () => ({
    rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] }],
  }),
  'rbac.authorization.k8s.io/RoleBinding': () => ({
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: FUZZ_NAMESPACE }],
  }),
  'rbac.authorization.k8s.io/ClusterRoleBinding': () => ({
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
  }),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': () => ({ webhooks: [webhook('m.fuzz.modelplane.dev')] }),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': () => ({
    webhooks: [webhook('v.fuzz.modelplane.dev')],
  }),
  'autoscaling/HorizontalPodAutoscaler': () => ({
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: FIXTURE_NAME },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ],
    },
  }),
  'policy/PodDisruptionBudget': () => ({ spec: { minAvailable: 1, selector: { matchLabels: { app: 'fuzz' } } } }),
  'networking.k8s.io/Ingress': () => ({
    spec: {
      rules: [
        {
          host: 'fuzz.example.com',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 80 } } } }],
          },
        },
      ],
    },
  }),
  'networking.k8s.io/NetworkPolicy': () => ({
    spec: {
      podSelector: { matchLabels: { app: 'fuzz' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: {} }] }],
    },
  }),
  'storage.k8s.io/StorageClass': () => ({
    provisioner: 'example.com/fuzz',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  }),
  'apiextensions.k8s.io/CustomResourceDefinition': (name) => crdBody(name),
  [`${FUZZ_GROUP}/Gadget`]: () => ({ spec: gadgetSpec() }),
};

function webhook(name: string): Obj {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Ignore',
    timeoutSeconds: 5,
    clientConfig: { url: 'https://127.0.0.1:1/hook' },
    rules: [
      { apiGroups: ['nothing.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['nothings'] },
    ],
  };
}

export function gadgetSpec(): Obj {
  return {
    size: 'medium',
    replicas: 2,
    minReplicas: 1,
    maxReplicas: 4,
    image: { repository: 'registry.example.com/gadget', tag: 'v1.2.3' },
    port: 8080,
    ratio: 0.5,
    owner: 'team@example.com',
    schedule: { start: '2026-01-01T00:00:00Z', every: '30m' },
    env: [
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'b' } } },
    ],
    tags: ['x', 'y'],
    limits: { cpu: '2', memory: '1Gi' },
    labels: { tier: 'backend' },
    extra: { anything: { goes: [1, 'two', { three: true }] } },
  };
}

/**
 * Schema-valid Gadget specs that break one CEL rule each (the transition rule only on update): the server
 * must answer 422 with the rule's message. Applied to a fresh `gadgetSpec()`.
 */
export const GADGET_RULE_VIOLATIONS: { rule: string; update?: boolean; apply: (spec: Obj) => void }[] = [
  {
    rule: 'minReplicas must not exceed maxReplicas',
    apply: (s) => Object.assign(s, { minReplicas: 5, maxReplicas: 2 }),
  },
  {
    rule: 'a large gadget may have at most 10 replicas',
    apply: (s) => Object.assign(s, { size: 'large', replicas: 11, maxReplicas: 20 }),
  },
  {
    rule: 'value and valueFrom are mutually exclusive',
    apply: (s) => ((s.env as Obj[])[0]!.valueFrom = { configMapKeyRef: { name: 'cm', key: 'k' } }),
  },
  {
    rule: 'image.repository is immutable',
    update: true,
    apply: (s) => ((s.image as Obj).repository = 'registry.example.com/other'),
  },
];

/** the schema of the fuzz CRD: types, enums, patterns, bounds, formats, list types, defaults, CEL */
export function gadgetSchema(): Obj {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        required: ['size', 'image'],
        'x-kubernetes-validations': [
          {
            rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
            message: 'minReplicas must not exceed maxReplicas',
            fieldPath: '.minReplicas',
            reason: 'FieldValueInvalid',
          },
          {
            rule: "self.size != 'large' || self.replicas <= 10",
            messageExpression: "'a large gadget may have at most 10 replicas, got ' + string(self.replicas)",
          },
          { rule: 'self.image.repository == oldSelf.image.repository', message: 'image.repository is immutable' },
        ],
        properties: {
          size: { type: 'string', enum: ['small', 'medium', 'large'] },
          replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 1000, default: 1 },
          minReplicas: { type: 'integer', minimum: 0 },
          maxReplicas: { type: 'integer', minimum: 1 },
          image: {
            type: 'object',
            required: ['repository'],
            properties: {
              repository: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[a-z0-9.\\-/:]+$' },
              tag: { type: 'string', maxLength: 128, default: 'latest' },
            },
          },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          ratio: { type: 'number', minimum: 0, maximum: 1 },
          owner: { type: 'string', format: 'email' },
          schedule: {
            type: 'object',
            properties: {
              start: { type: 'string', format: 'date-time' },
              every: { type: 'string', format: 'duration' },
            },
          },
          env: {
            type: 'array',
            maxItems: 32,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              'x-kubernetes-validations': [
                {
                  rule: '!(has(self.value) && has(self.valueFrom))',
                  message: 'value and valueFrom are mutually exclusive',
                },
              ],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 64 },
                value: { type: 'string' },
                valueFrom: {
                  type: 'object',
                  properties: {
                    configMapKeyRef: {
                      type: 'object',
                      properties: { name: { type: 'string' }, key: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
          tags: {
            type: 'array',
            'x-kubernetes-list-type': 'set',
            maxItems: 16,
            items: { type: 'string', maxLength: 32 },
          },
          limits: {
            type: 'object',
            additionalProperties: {
              'x-kubernetes-int-or-string': true,
              anyOf: [{ type: 'integer' }, { type: 'string' }],
              pattern:
                '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
            },
          },
          labels: { type: 'object', maxProperties: 8, additionalProperties: { type: 'string', maxLength: 63 } },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          note: { type: 'string', nullable: true, maxLength: 1024 },
        },
      },
      status: {
        type: 'object',
        properties: {
          phase: { type: 'string', enum: ['Pending', 'Ready', 'Failed'] },
          replicas: { type: 'integer', minimum: 0 },
          selector: { type: 'string' },
          observedGeneration: { type: 'integer', format: 'int64' },
          conditions: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            items: {
              type: 'object',
              required: ['type', 'status'],
              properties: {
                type: { type: 'string' },
                status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                reason: { type: 'string' },
                message: { type: 'string' },
                lastTransitionTime: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    },
  };
}

/** spec of a CRD named `<plural>.<group>`; the fuzz CRD when `name` is FUZZ_CRD_NAME */
function crdBody(name: string): Obj {
  const dot = name.indexOf('.');
  const plural = dot > 0 ? name.slice(0, dot) : `${name}s`;
  const group = dot > 0 ? name.slice(dot + 1) : FUZZ_GROUP;
  const kind =
    plural === 'gadgets' ? 'Gadget' : `${plural.charAt(0).toUpperCase()}${plural.slice(1).replace(/s$/, '')}`;
  return {
    spec: {
      group,
      scope: 'Namespaced',
      names: {
        plural,
        singular: plural.replace(/s$/, ''),
        kind,
        listKind: `${kind}List`,
        shortNames: plural === 'gadgets' ? ['gdg'] : [],
        categories: ['fuzz'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: gadgetSchema() },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Size', type: 'string', jsonPath: '.spec.size' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

export interface KindRef {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
}

/** A valid object of the kind, or a bare one (type meta + metadata) for kinds the corpus does not know. */
export function validObject(k: KindRef, name: string, namespace: string | undefined): Obj {
  const body = bodies[`${k.group}/${k.kind}`]?.(name) ?? {};
  const metadata: Obj = {
    name,
    labels: { app: 'fuzz', 'fuzz.modelplane.dev/generation': '1' },
    annotations: { 'fuzz.modelplane.dev/note': 'created by the fuzz test' },
  };
  if (k.namespaced && namespace) metadata.namespace = namespace;
  return {
    apiVersion: k.group ? `${k.group}/${k.version}` : k.version,
    kind: k.kind,
    metadata,
    ...structuredClone(body),
  };
}

export function hasCorpusEntry(k: KindRef): boolean {
  return `${k.group}/${k.kind}` in bodies;
}

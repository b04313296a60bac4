import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyBuiltinDefaults } from '../src/builtin/defaults.ts';
import { applyPodAdmissionDefaults, imageTag } from '../src/builtin/pod-defaults.ts';

type Obj = Record<string, unknown>;

const defaulted = (group: string, version: string, kind: string, o: Obj): Obj =>
  applyBuiltinDefaults(group, version, kind, structuredClone(o));

/** What kube adds to every container in a pod spec (template or pod). */
const containerDefaults = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
const podSpecDefaults = {
  dnsPolicy: 'ClusterFirst',
  restartPolicy: 'Always',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
  schedulerName: 'default-scheduler',
};

describe('image pull policy tag detection', () => {
  const cases: [string, string][] = [
    ['nginx', 'latest'],
    ['nginx:latest', 'latest'],
    ['nginx:1.25', '1.25'],
    ['registry.example.com:5000/team/app', 'latest'],
    ['registry.example.com:5000/team/app:v2', 'v2'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', ''],
    ['nginx:1.25@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', '1.25'],
    ['Nginx', ''],
    ['', ''],
  ];
  for (const [image, tag] of cases)
    it(`${image || '(empty)'} → ${tag || '(none)'}`, () => assert.equal(imageTag(image), tag));
});

describe('Deployment defaults', () => {
  it('fills replicas, strategy, limits, deadline and the pod template', () => {
    const d = defaulted('apps', 'v1', 'Deployment', {
      spec: {
        selector: { matchLabels: { app: 'w' } },
        template: {
          metadata: { labels: { app: 'w' } },
          spec: { containers: [{ name: 'w', image: 'nginx', ports: [{ containerPort: 80 }] }] },
        },
      },
    });
    assert.deepEqual(d.spec, {
      replicas: 1,
      selector: { matchLabels: { app: 'w' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: {
        // Go's shapes: the template's zero creationTimestamp is null, an empty ResourceRequirements is {}
        metadata: { labels: { app: 'w' }, creationTimestamp: null },
        spec: {
          ...podSpecDefaults,
          containers: [
            {
              name: 'w',
              image: 'nginx',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              imagePullPolicy: 'Always',
              resources: {},
              ...containerDefaults,
            },
          ],
        },
      },
    });
  });
  it('keeps explicit values, including zero replicas and Recreate', () => {
    const d = defaulted('apps', 'v1', 'Deployment', {
      spec: {
        replicas: 0,
        strategy: { type: 'Recreate' },
        revisionHistoryLimit: 2,
        template: { spec: { containers: [] } },
      },
    });
    const spec = d.spec as Obj;
    assert.equal(spec.replicas, 0);
    assert.deepEqual(spec.strategy, { type: 'Recreate' });
    assert.equal(spec.revisionHistoryLimit, 2);
  });
});

describe('Pod defaults', () => {
  const pod = {
    spec: {
      hostNetwork: true,
      containers: [
        {
          name: 'a',
          image: 'app:1.0',
          ports: [{ containerPort: 8080 }],
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
          livenessProbe: { httpGet: { port: 8080 } },
          readinessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
        },
      ],
      volumes: [
        { name: 'scratch' },
        { name: 'cfg', configMap: { name: 'c' } },
        { name: 'host', hostPath: { path: '/x' } },
      ],
    },
  };
  const got = defaulted('', 'v1', 'Pod', pod).spec as Obj;
  const c = (got.containers as Obj[])[0]!;
  const cases: [string, unknown, unknown][] = [
    ['restartPolicy', got.restartPolicy, 'Always'],
    ['dnsPolicy', got.dnsPolicy, 'ClusterFirst'],
    ['terminationGracePeriodSeconds', got.terminationGracePeriodSeconds, 30],
    ['schedulerName', got.schedulerName, 'default-scheduler'],
    ['securityContext', got.securityContext, {}],
    ['enableServiceLinks', got.enableServiceLinks, true],
    ['imagePullPolicy for a tag', c.imagePullPolicy, 'IfNotPresent'],
    ['terminationMessagePath', c.terminationMessagePath, '/dev/termination-log'],
    ['terminationMessagePolicy', c.terminationMessagePolicy, 'File'],
    ['port protocol and host port on hostNetwork', c.ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]],
    [
      'fieldRef apiVersion',
      (c.env as Obj[])[0],
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } },
    ],
    ['requests default to limits', (c.resources as Obj).requests, { cpu: '500m', memory: '1Gi' }],
    [
      'http probe',
      c.livenessProbe,
      {
        httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
    ],
    [
      'grpc probe keeps periodSeconds',
      c.readinessProbe,
      {
        grpc: { port: 9000, service: '' },
        periodSeconds: 5,
        timeoutSeconds: 1,
        successThreshold: 1,
        failureThreshold: 3,
      },
    ],
    [
      'volumes',
      got.volumes,
      [
        { name: 'scratch', emptyDir: {} },
        { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } },
        { name: 'host', hostPath: { path: '/x', type: '' } },
      ],
    ],
  ];
  for (const [name, actual, want] of cases) it(name, () => assert.deepEqual(actual, want));
  it('templates get neither enableServiceLinks nor request defaulting', () => {
    const rs = defaulted('apps', 'v1', 'ReplicaSet', {
      spec: { template: { spec: { containers: [{ name: 'a', image: 'x', resources: { limits: { cpu: '1' } } }] } } },
    });
    const spec = (rs.spec as { template: { spec: Obj } }).template.spec;
    assert.equal(spec.enableServiceLinks, undefined);
    assert.deepEqual((spec.containers as Obj[])[0]!.resources, { limits: { cpu: '1' } });
    assert.equal((rs.spec as Obj).replicas, 1);
  });
  it('mirrors serviceAccountName and podIPs like v1 conversion', () => {
    const p = defaulted('', 'v1', 'Pod', {
      spec: { serviceAccount: 'legacy', containers: [] },
      status: { podIP: '10.0.0.5' },
    });
    assert.equal((p.spec as Obj).serviceAccountName, 'legacy');
    assert.deepEqual((p.status as Obj).podIPs, [{ ip: '10.0.0.5' }]);
  });
  it('admission defaults', () => {
    const p = applyPodAdmissionDefaults({
      spec: {
        containers: [],
        tolerations: [
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
        ],
      },
    });
    assert.deepEqual(p.spec, {
      containers: [],
      serviceAccountName: 'default',
      serviceAccount: 'default',
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
  });
});

describe('Job and CronJob defaults', () => {
  const cases: [string, Obj, Obj][] = [
    [
      'non-parallel job',
      { spec: { template: { metadata: { labels: { a: 'b' } }, spec: { restartPolicy: 'Never', containers: [] } } } },
      {
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: 'NonIndexed',
        suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed',
      },
    ],
    [
      'explicit parallelism only',
      { spec: { parallelism: 3, template: { spec: { containers: [] } } } },
      { parallelism: 3, backoffLimit: 6 },
    ],
    [
      'backoffLimitPerIndex',
      {
        spec: {
          backoffLimitPerIndex: 1,
          completionMode: 'Indexed',
          completions: 3,
          template: { spec: { containers: [] } },
        },
      },
      { backoffLimit: 2147483647, parallelism: 1 },
    ],
    [
      'pod failure policy',
      {
        spec: {
          podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
          template: { spec: { containers: [] } },
        },
      },
      {
        podReplacementPolicy: 'Failed',
        podFailurePolicy: {
          rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
        },
      },
    ],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const spec = defaulted('batch', 'v1', 'Job', input).spec as Obj;
      for (const [k, v] of Object.entries(want)) assert.deepEqual(spec[k], v, k);
      assert.equal((spec.template as { spec: Obj }).spec.dnsPolicy, 'ClusterFirst');
    });
  }
  it('copies template labels to an unlabelled job', () => {
    const j = defaulted('batch', 'v1', 'Job', {
      metadata: { name: 'j' },
      spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [] } } },
    });
    assert.deepEqual((j.metadata as Obj).labels, { a: 'b' });
  });
  it('cronjob defaults leave the job template spec alone', () => {
    const cj = defaulted('batch', 'v1', 'CronJob', {
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [] } } } },
      },
    });
    const spec = cj.spec as Obj;
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    const jobSpec = (spec.jobTemplate as { spec: Obj }).spec;
    assert.equal(jobSpec.backoffLimit, undefined);
    assert.equal((jobSpec.template as { spec: Obj }).spec.schedulerName, 'default-scheduler');
  });
});

describe('Service defaults', () => {
  const cases: [string, Obj, Obj][] = [
    [
      'plain ClusterIP',
      { spec: { selector: { app: 'a' }, ports: [{ port: 80 }, { port: 443, targetPort: 'https' }] } },
      {
        selector: { app: 'a' },
        ports: [
          { port: 80, protocol: 'TCP', targetPort: 80 },
          { port: 443, targetPort: 'https', protocol: 'TCP' },
        ],
        sessionAffinity: 'None',
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    ],
    [
      'LoadBalancer',
      { spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 0 }] } },
      {
        type: 'LoadBalancer',
        ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Cluster',
        internalTrafficPolicy: 'Cluster',
        allocateLoadBalancerNodePorts: true,
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    ],
    [
      'ClientIP affinity and a given IPv6 clusterIP',
      { spec: { sessionAffinity: 'ClientIP', clusterIP: 'fd00::10', ports: [] } },
      {
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
        clusterIP: 'fd00::10',
        clusterIPs: ['fd00::10'],
        ports: [],
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv6'],
      },
    ],
    [
      'ExternalName',
      { spec: { type: 'ExternalName', externalName: 'db.example.com' } },
      { type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' },
    ],
  ];
  for (const [name, input, want] of cases)
    it(name, () => assert.deepEqual(defaulted('', 'v1', 'Service', input).spec, want));
});

describe('other kinds', () => {
  const cases: [string, [string, string, string], Obj, Obj][] = [
    ['Secret type', ['', 'v1', 'Secret'], { data: {} }, { data: {}, type: 'Opaque' }],
    ['Secret keeps its type', ['', 'v1', 'Secret'], { type: 'kubernetes.io/tls' }, { type: 'kubernetes.io/tls' }],
    [
      'PersistentVolumeClaim',
      ['', 'v1', 'PersistentVolumeClaim'],
      { spec: { accessModes: ['ReadWriteOnce'] } },
      { spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' }, status: { phase: 'Pending' } },
    ],
    [
      'Namespace',
      ['', 'v1', 'Namespace'],
      { metadata: { name: 'team-a' } },
      {
        // (spec.finalizers is set by the strategy on create, not by defaulting: the creator does not own it)
        metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
        status: { phase: 'Active' },
      },
    ],
    ['ConfigMap is untouched', ['', 'v1', 'ConfigMap'], { data: { a: 'b' } }, { data: { a: 'b' } }],
    [
      'ServiceAccount is untouched',
      ['', 'v1', 'ServiceAccount'],
      { metadata: { name: 's' } },
      { metadata: { name: 's' } },
    ],
    ['Lease is untouched', ['coordination.k8s.io', 'v1', 'Lease'], { spec: {} }, { spec: {} }],
    [
      'PodDisruptionBudget is untouched',
      ['policy', 'v1', 'PodDisruptionBudget'],
      { spec: { minAvailable: 1 } },
      { spec: { minAvailable: 1 } },
    ],
    [
      'HPA v1',
      ['autoscaling', 'v1', 'HorizontalPodAutoscaler'],
      { spec: { maxReplicas: 3 } },
      { spec: { maxReplicas: 3, minReplicas: 1 } },
    ],
    [
      'HPA v2',
      ['autoscaling', 'v2', 'HorizontalPodAutoscaler'],
      { spec: { maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } },
      {
        spec: {
          maxReplicas: 3,
          minReplicas: 1,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
          ],
          behavior: {
            scaleDown: {
              stabilizationWindowSeconds: 60,
              selectPolicy: 'Max',
              policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
            },
            scaleUp: {
              stabilizationWindowSeconds: 0,
              selectPolicy: 'Max',
              policies: [
                { type: 'Pods', value: 4, periodSeconds: 15 },
                { type: 'Percent', value: 100, periodSeconds: 15 },
              ],
            },
          },
        },
      },
    ],
    [
      'RoleBinding',
      ['rbac.authorization.k8s.io', 'v1', 'RoleBinding'],
      {
        roleRef: { kind: 'Role', name: 'r' },
        subjects: [
          { kind: 'User', name: 'u' },
          { kind: 'ServiceAccount', name: 's', namespace: 'n' },
        ],
      },
      {
        roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' },
        subjects: [
          { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' },
          { kind: 'ServiceAccount', name: 's', namespace: 'n' },
        ],
      },
    ],
    [
      'ValidatingWebhookConfiguration',
      ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration'],
      {
        webhooks: [
          {
            name: 'w.example.com',
            clientConfig: { service: { name: 's', namespace: 'n' } },
            rules: [{ operations: ['CREATE'] }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      },
      {
        webhooks: [
          {
            name: 'w.example.com',
            clientConfig: { service: { name: 's', namespace: 'n', port: 443 } },
            rules: [{ operations: ['CREATE'], scope: '*' }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            matchPolicy: 'Equivalent',
            namespaceSelector: {},
            objectSelector: {},
            timeoutSeconds: 10,
          },
        ],
      },
    ],
    [
      'NetworkPolicy',
      ['networking.k8s.io', 'v1', 'NetworkPolicy'],
      { spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } },
      {
        spec: {
          podSelector: {},
          egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }],
          policyTypes: ['Ingress', 'Egress'],
        },
      },
    ],
    [
      'CustomResourceDefinition',
      ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'],
      {
        spec: { names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1', served: true, storage: true }] },
      },
      {
        spec: {
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          versions: [{ name: 'v1', served: true, storage: true }],
          conversion: { strategy: 'None' },
        },
        status: { storedVersions: ['v1'] },
      },
    ],
    [
      'StatefulSet',
      ['apps', 'v1', 'StatefulSet'],
      {
        spec: {
          serviceName: 's',
          template: { spec: { containers: [] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }],
        },
      },
      {
        spec: {
          serviceName: 's',
          podManagementPolicy: 'OrderedReady',
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
          replicas: 1,
          revisionHistoryLimit: 10,
          template: { metadata: { creationTimestamp: null }, spec: { containers: [], ...podSpecDefaults } },
          volumeClaimTemplates: [
            { metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } },
          ],
        },
      },
    ],
    [
      'DaemonSet',
      ['apps', 'v1', 'DaemonSet'],
      { spec: { template: { spec: { containers: [] } } } },
      {
        spec: {
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
          revisionHistoryLimit: 10,
          template: { metadata: { creationTimestamp: null }, spec: { containers: [], ...podSpecDefaults } },
        },
      },
    ],
  ];
  for (const [name, [group, version, kind], input, want] of cases) {
    it(name, () => assert.deepEqual(defaulted(group, version, kind, input), want));
  }
  it('returns non-objects unchanged', () => assert.equal(applyBuiltinDefaults('', 'v1', 'Pod', null), null));
  it('is idempotent', () => {
    const once = defaulted('apps', 'v1', 'Deployment', {
      spec: { template: { spec: { containers: [{ name: 'a', image: 'b' }] } } },
    });
    assert.deepEqual(defaulted('apps', 'v1', 'Deployment', once), once);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  builtinRowConditions,
  builtinTableColumns,
  builtinTableRow,
  hasBuiltinPrinter,
} from '../src/builtin/printers/index.ts';
import type { KubeObject } from '../src/types.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();
const obj = (
  apiVersion: string,
  kind: string,
  rest: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', creationTimestamp: ago(300), ...metadata },
  ...rest,
});

const names = (group: string, kind: string) =>
  builtinTableColumns(group, kind).map((c) => (c.priority ? `${c.name}*` : c.name));

describe('column definitions', () => {
  const cases: [string, string, string[]][] = [
    ['', 'Pod', ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP*', 'Node*', 'Nominated Node*', 'Readiness Gates*']],
    ['apps', 'Deployment', ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['batch', 'Job', ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['', 'Service', ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']],
    [
      '',
      'Node',
      [
        'Name',
        'Status',
        'Roles',
        'Age',
        'Version',
        'Internal-IP*',
        'External-IP*',
        'OS-Image*',
        'Kernel-Version*',
        'Container-Runtime*',
      ],
    ],
    [
      '',
      'PersistentVolumeClaim',
      [
        'Name',
        'Status',
        'Volume',
        'Capacity',
        'Access Modes',
        'StorageClass',
        'VolumeAttributesClass',
        'Age',
        'VolumeMode*',
      ],
    ],
    [
      '',
      'Event',
      ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
    ],
    [
      'autoscaling',
      'HorizontalPodAutoscaler',
      ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
    ],
    ['rbac.authorization.k8s.io', 'RoleBinding', ['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']],
    ['rbac.authorization.k8s.io', 'Role', ['Name', 'Created At']],
    ['apiextensions.k8s.io', 'CustomResourceDefinition', ['Name', 'Created At']],
  ];
  for (const [group, kind, want] of cases)
    it(`${group || 'core'}/${kind}`, () => assert.deepEqual(names(group, kind), want));
  it('marks the name column and types', () => {
    const [name, , , restarts] = builtinTableColumns('', 'Pod');
    assert.equal(name!.format, 'name');
    assert.equal(restarts!.type, 'string');
    assert.equal(builtinTableColumns('', 'ConfigMap')[1]!.type, 'string');
    assert.equal(builtinTableColumns('rbac.authorization.k8s.io', 'ClusterRole')[1]!.type, 'date');
    assert.equal(hasBuiltinPrinter('', 'Pod'), true);
    assert.equal(hasBuiltinPrinter('rbac.authorization.k8s.io', 'Role'), false);
  });
});

const running = { running: { startedAt: ago(200) } };
const podWith = (
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
) => obj('v1', 'Pod', { spec, status }, metadata);
const twoContainers = { containers: [{ name: 'a' }, { name: 'b' }] };

describe('pod STATUS, READY and RESTARTS', () => {
  const cases: [string, KubeObject, [string, string, string]][] = [
    ['pending unscheduled', podWith(twoContainers, { phase: 'Pending' }), ['0/2', 'Pending', '0']],
    [
      'container creating',
      podWith(twoContainers, {
        phase: 'Pending',
        containerStatuses: [
          { name: 'a', state: { waiting: { reason: 'ContainerCreating' } } },
          { name: 'b', state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      }),
      ['0/2', 'ContainerCreating', '0'],
    ],
    [
      'running and ready',
      podWith(twoContainers, {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, state: running },
          { name: 'b', ready: true, state: running },
        ],
      }),
      ['2/2', 'Running', '0'],
    ],
    [
      'crash loop with restarts',
      podWith(twoContainers, {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, state: running },
          {
            name: 'b',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastTerminationState: { terminated: { exitCode: 1, finishedAt: ago(90) } },
          },
        ],
      }),
      ['1/2', 'CrashLoopBackOff', '4 (90s ago)'],
    ],
    [
      'image pull backoff',
      podWith(
        { containers: [{ name: 'a' }] },
        { phase: 'Pending', containerStatuses: [{ name: 'a', state: { waiting: { reason: 'ImagePullBackOff' } } }] },
      ),
      ['0/1', 'ImagePullBackOff', '0'],
    ],
    [
      'completed',
      podWith(
        { containers: [{ name: 'a' }] },
        {
          phase: 'Succeeded',
          containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
        },
      ),
      ['0/1', 'Completed', '0'],
    ],
    [
      'terminated without reason',
      podWith(
        { containers: [{ name: 'a' }] },
        { phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 137 } } }] },
      ),
      ['0/1', 'ExitCode:137', '0'],
    ],
    [
      'one completed, one still running and pod ready',
      podWith(twoContainers, {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'b', ready: true, state: running },
        ],
      }),
      ['1/2', 'Running', '0'],
    ],
    [
      'one completed, one running, pod not ready',
      podWith(twoContainers, {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'b', ready: true, state: running },
        ],
      }),
      ['1/2', 'NotReady', '0'],
    ],
    [
      'waiting on init containers',
      podWith(
        { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
        {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'i1', state: { terminated: { exitCode: 0 } } },
            { name: 'i2', state: running },
          ],
          containerStatuses: [{ name: 'a', state: { waiting: { reason: 'PodInitializing' } } }],
        },
      ),
      ['0/1', 'Init:1/2', '0'],
    ],
    [
      'init container crash loop',
      podWith(
        { initContainers: [{ name: 'i1' }], containers: [{ name: 'a' }] },
        {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'i1', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
        },
      ),
      ['0/1', 'Init:CrashLoopBackOff', '2'],
    ],
    [
      'init container failed',
      podWith(
        { initContainers: [{ name: 'i1' }], containers: [{ name: 'a' }] },
        { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 2 } } }] },
      ),
      ['0/1', 'Init:ExitCode:2', '0'],
    ],
    [
      'sidecar init container counts as a container',
      podWith(
        { initContainers: [{ name: 's', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
        {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [{ name: 's', started: true, ready: true, state: running }],
          containerStatuses: [{ name: 'a', ready: true, state: running }],
        },
      ),
      ['2/2', 'Running', '0'],
    ],
    [
      'terminating',
      podWith(
        { containers: [{ name: 'a' }] },
        { phase: 'Running', containerStatuses: [{ name: 'a', ready: true, state: running }] },
        { deletionTimestamp: ago(1) },
      ),
      ['1/1', 'Terminating', '0'],
    ],
    [
      'node lost',
      podWith({ containers: [{ name: 'a' }] }, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: ago(1) }),
      ['0/1', 'Unknown', '0'],
    ],
    [
      'evicted',
      podWith({ containers: [{ name: 'a' }] }, { phase: 'Failed', reason: 'Evicted' }),
      ['0/1', 'Evicted', '0'],
    ],
    [
      'scheduling gated',
      podWith(
        { containers: [{ name: 'a' }] },
        { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
      ),
      ['0/1', 'SchedulingGated', '0'],
    ],
  ];
  for (const [name, pod, [ready, status, restarts]] of cases) {
    it(name, () => {
      const cells = builtinTableRow('', 'Pod', pod, NOW);
      assert.deepEqual(cells.slice(1, 4), [ready, status, restarts]);
      assert.equal(cells[4], '5m');
    });
  }
  it('wide cells', () => {
    const pod = podWith(
      {
        containers: [{ name: 'a' }],
        nodeName: 'node-1',
        readinessGates: [{ conditionType: 'g1' }, { conditionType: 'g2' }],
      },
      { phase: 'Running', podIPs: [{ ip: '10.1.0.4' }], conditions: [{ type: 'g1', status: 'True' }] },
    );
    assert.deepEqual(builtinTableRow('', 'Pod', pod, NOW).slice(5), ['10.1.0.4', 'node-1', '<none>', '1/2']);
    assert.deepEqual(builtinTableRow('', 'Pod', podWith({ containers: [] }, {}), NOW).slice(5), [
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });
  it('marks finished pods Completed', () => {
    assert.deepEqual(builtinRowConditions('', 'Pod', podWith({}, { phase: 'Succeeded' })), [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    assert.equal(builtinRowConditions('', 'Pod', podWith({}, { phase: 'Running' })), undefined);
  });
});

const template = {
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1' },
      { name: 'side', image: 'busybox' },
    ],
  },
};

describe('rows for other kinds', () => {
  const cases: [string, string, string, KubeObject, unknown[]][] = [
    [
      'deployment',
      'apps',
      'Deployment',
      obj('apps/v1', 'Deployment', {
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      }),
      ['x', '2/3', 3, 2, '5m', 'app,side', 'nginx:1,busybox', 'app=web'],
    ],
    [
      'replicaset',
      'apps',
      'ReplicaSet',
      obj('apps/v1', 'ReplicaSet', {
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
        status: { replicas: 2, readyReplicas: 1 },
      }),
      ['x', 2, 2, 1, '5m', 'app,side', 'nginx:1,busybox', 'app=web'],
    ],
    [
      'replicationcontroller (its selector a plain label map)',
      '',
      'ReplicationController',
      obj('v1', 'ReplicationController', {
        spec: { replicas: 3, selector: { app: 'web', tier: 'front' }, template },
        status: { replicas: 3, readyReplicas: 2 },
      }),
      ['x', 3, 3, 2, '5m', 'app,side', 'nginx:1,busybox', 'app=web,tier=front'],
    ],
    [
      'running job',
      'batch',
      'Job',
      obj('batch/v1', 'Job', {
        spec: { completions: 3, selector: { matchLabels: { j: 'x' } }, template },
        status: { succeeded: 1, startTime: ago(65) },
      }),
      ['x', 'Running', '1/3', '65s', '5m', 'app,side', 'nginx:1,busybox', 'j=x'],
    ],
    [
      'complete job',
      'batch',
      'Job',
      obj('batch/v1', 'Job', {
        spec: { parallelism: 2, template },
        status: {
          succeeded: 1,
          startTime: ago(300),
          completionTime: ago(60),
          conditions: [{ type: 'Complete', status: 'True' }],
        },
      }),
      ['x', 'Complete', '1/1 of 2', '4m', '5m', 'app,side', 'nginx:1,busybox', '<none>'],
    ],
    [
      'cluster-ip service',
      '',
      'Service',
      obj('v1', 'Service', {
        spec: {
          type: 'ClusterIP',
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          ports: [
            { port: 53, protocol: 'UDP' },
            { port: 80, protocol: 'TCP' },
          ],
          selector: { app: 'dns' },
        },
      }),
      ['x', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,80/TCP', '5m', 'app=dns'],
    ],
    [
      'pending load balancer',
      '',
      'Service',
      obj('v1', 'Service', {
        spec: {
          type: 'LoadBalancer',
          clusterIPs: ['10.0.0.1'],
          ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }],
        },
      }),
      ['x', 'LoadBalancer', '10.0.0.1', '<pending>', '80:30080/TCP', '5m', '<none>'],
    ],
    [
      'external name service',
      '',
      'Service',
      obj('v1', 'Service', { spec: { type: 'ExternalName', externalName: 'db.example.com' } }),
      ['x', 'ExternalName', '<none>', 'db.example.com', '<none>', '5m', '<none>'],
    ],
    [
      'configmap',
      '',
      'ConfigMap',
      obj('v1', 'ConfigMap', { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }),
      ['x', 3, '5m'],
    ],
    ['secret', '', 'Secret', obj('v1', 'Secret', { type: 'Opaque', data: { a: 'MQ==' } }), ['x', 'Opaque', 1, '5m']],
    ['namespace', '', 'Namespace', obj('v1', 'Namespace', { status: { phase: 'Active' } }), ['x', 'Active', '5m']],
    [
      'node',
      '',
      'Node',
      obj(
        'v1',
        'Node',
        {
          spec: { unschedulable: true },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            nodeInfo: { kubeletVersion: 'v1.32.0' },
            addresses: [{ type: 'InternalIP', address: '192.168.0.2' }],
          },
        },
        { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master' } },
      ),
      [
        'x',
        'Ready,SchedulingDisabled',
        'control-plane,master',
        '5m',
        'v1.32.0',
        '192.168.0.2',
        '<none>',
        '<unknown>',
        '<unknown>',
        '<unknown>',
      ],
    ],
    [
      'bound pvc',
      '',
      'PersistentVolumeClaim',
      obj('v1', 'PersistentVolumeClaim', {
        spec: { volumeName: 'pv-1', storageClassName: 'standard', volumeMode: 'Filesystem' },
        status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] },
      }),
      ['x', 'Bound', 'pv-1', '10Gi', 'RWO,ROX', 'standard', '<unset>', '5m', 'Filesystem'],
    ],
    [
      'pending pvc',
      '',
      'PersistentVolumeClaim',
      obj('v1', 'PersistentVolumeClaim', { spec: {}, status: { phase: 'Pending' } }),
      ['x', 'Pending', '', '', '', '', '<unset>', '5m', '<unset>'],
    ],
    [
      'event',
      '',
      'Event',
      obj('v1', 'Event', {
        type: 'Warning',
        reason: 'BackOff',
        message: ' Back-off restarting failed container \n',
        involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{app}' },
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: ago(600),
        lastTimestamp: ago(30),
        count: 7,
      }),
      [
        '30s',
        'Warning',
        'BackOff',
        'pod/web-1',
        'spec.containers{app}',
        'kubelet, node-1',
        'Back-off restarting failed container',
        '10m',
        7,
        'x',
      ],
    ],
    [
      'events.k8s.io event with series',
      'events.k8s.io',
      'Event',
      obj('events.k8s.io/v1', 'Event', {
        type: 'Normal',
        reason: 'Scaled',
        note: 'scaled up',
        regarding: { kind: 'Deployment', name: 'web' },
        reportingController: 'deployment-controller',
        eventTime: ago(120),
        series: { count: 3, lastObservedTime: ago(10) },
      }),
      ['10s', 'Normal', 'Scaled', 'deployment/web', '', 'deployment-controller', 'scaled up', '2m', 3, 'x'],
    ],
    ['service account', '', 'ServiceAccount', obj('v1', 'ServiceAccount', {}), ['x', 0, '5m']],
    [
      'endpoints',
      '',
      'Endpoints',
      obj('v1', 'Endpoints', {
        subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }],
      }),
      ['x', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '5m'],
    ],
    [
      'lease',
      'coordination.k8s.io',
      'Lease',
      obj('coordination.k8s.io/v1', 'Lease', { spec: { holderIdentity: 'op-1' } }),
      ['x', 'op-1', '5m'],
    ],
    [
      'rolebinding',
      'rbac.authorization.k8s.io',
      'RoleBinding',
      obj('rbac.authorization.k8s.io/v1', 'RoleBinding', {
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'Group', name: 'devs' },
          { kind: 'ServiceAccount', name: 'bot', namespace: 'ci' },
          { kind: 'User', name: 'bob' },
        ],
      }),
      ['x', 'ClusterRole/view', '5m', 'alice, bob', 'devs', 'ci/bot'],
    ],
    [
      'webhook configuration',
      'admissionregistration.k8s.io',
      'ValidatingWebhookConfiguration',
      obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', { webhooks: [{}, {}] }),
      ['x', 2, '5m'],
    ],
    [
      'role uses the default table',
      'rbac.authorization.k8s.io',
      'Role',
      obj('rbac.authorization.k8s.io/v1', 'Role', {}, { creationTimestamp: '2024-05-01T10:20:30.456Z' }),
      ['x', '2024-05-01T10:20:30Z'],
    ],
    [
      'hpa v2',
      'autoscaling',
      'HorizontalPodAutoscaler',
      obj('autoscaling/v2', 'HorizontalPodAutoscaler', {
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'web' },
          minReplicas: 1,
          maxReplicas: 5,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
            { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
            { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
          ],
        },
        status: {
          currentReplicas: 2,
          currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } }],
        },
      }),
      ['x', 'Deployment/web', 'cpu: 40%/80%, <unknown>/10 + 1 more...', '1', 5, 2, '5m'],
    ],
    [
      'hpa v1',
      'autoscaling',
      'HorizontalPodAutoscaler',
      obj('autoscaling/v1', 'HorizontalPodAutoscaler', {
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'web' },
          maxReplicas: 3,
          targetCPUUtilizationPercentage: 50,
        },
        status: {},
      }),
      ['x', 'Deployment/web', 'cpu: <unknown>/50%', '<unset>', 3, 0, '5m'],
    ],
    [
      'pdb',
      'policy',
      'PodDisruptionBudget',
      obj('policy/v1', 'PodDisruptionBudget', { spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }),
      ['x', '50%', 'N/A', 1, '5m'],
    ],
    [
      'ingress',
      'networking.k8s.io',
      'Ingress',
      obj('networking.k8s.io/v1', 'Ingress', {
        spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com' }, {}], tls: [{}] },
        status: { loadBalancer: { ingress: [{ ip: '10.0.0.9' }, { hostname: 'lb.example.com' }] } },
      }),
      ['x', 'nginx', 'a.example.com', '10.0.0.9,lb.example.com', '80, 443', '5m'],
    ],
    [
      'network policy',
      'networking.k8s.io',
      'NetworkPolicy',
      obj('networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: {} } }),
      ['x', '<none>', '5m'],
    ],
    [
      'unknown age',
      '',
      'ConfigMap',
      obj('v1', 'ConfigMap', {}, { creationTimestamp: undefined }),
      ['x', 0, '<unknown>'],
    ],
  ];
  for (const [name, group, kind, o, want] of cases) {
    it(name, () => {
      const cells = builtinTableRow(group, kind, o, NOW);
      assert.deepEqual(cells, want);
      assert.equal(cells.length, builtinTableColumns(group, kind).length, 'one cell per column');
    });
  }
});

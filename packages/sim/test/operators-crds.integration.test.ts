// The external projects' CRDs as installed by `modelplane dev`: every upstream sample object applies
// unchanged, and real kubectl finds each kind by its short names and categories and prints the
// upstream printer columns.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { stringify } from 'yaml';
import { externalCrds } from '../src/operators/index.ts';

const NS = 'crds';

// upstream samples (KServe, KAITO, Dynamo, KubeRay, KEDA and Gateway API docs), trimmed to their spec
const samples: Array<{ resource: string; name: string; header: string[]; obj: Record<string, unknown> }> = [
  {
    resource: 'isvc',
    name: 'sklearn-iris',
    header: ['NAME', 'URL', 'READY', 'PREV', 'LATEST', 'AGE'],
    obj: {
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      spec: {
        predictor: {
          model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://kfserving-examples/models/sklearn/1.0/model' },
        },
      },
    },
  },
  {
    resource: 'wk',
    name: 'workspace-falcon-7b',
    header: ['NAME', 'INSTANCE', 'RESOURCEREADY', 'INFERENCEREADY', 'JOBSTARTED', 'WORKSPACESUCCEEDED', 'AGE'],
    obj: {
      apiVersion: 'kaito.sh/v1beta1',
      kind: 'Workspace',
      resource: { instanceType: 'Standard_NC12s_v3', labelSelector: { matchLabels: { apps: 'falcon-7b' } } },
      inference: { preset: { name: 'falcon-7b' } },
    },
  },
  {
    resource: 'dgd',
    name: 'vllm-agg',
    header: ['NAME', 'READY', 'STATE', 'BACKEND', 'AGE'],
    obj: {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'DynamoGraphDeployment',
      spec: {
        backendFramework: 'vllm',
        services: {
          Frontend: {
            dynamoNamespace: 'vllm-agg',
            componentType: 'frontend',
            replicas: 1,
            extraPodSpec: { mainContainer: { image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1' } },
          },
          VllmDecodeWorker: {
            envFromSecret: 'hf-token-secret',
            dynamoNamespace: 'vllm-agg',
            componentType: 'worker',
            replicas: 1,
            resources: { limits: { gpu: '1' } },
            extraPodSpec: {
              mainContainer: {
                image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1',
                workingDir: '/workspace/components/backends/vllm',
                command: ['python3', '-m', 'dynamo.vllm'],
                args: ['--model', 'Qwen/Qwen3-0.6B'],
              },
            },
          },
        },
      },
    },
  },
  {
    resource: 'rayservice',
    name: 'rayservice-sample',
    header: ['NAME', 'SERVICE STATUS', 'NUM SERVE ENDPOINTS', 'AGE'],
    obj: {
      apiVersion: 'ray.io/v1',
      kind: 'RayService',
      spec: {
        serveConfigV2:
          'applications:\n  - name: fruit_app\n    import_path: fruit.deployment_graph\n    route_prefix: /fruit\n',
        rayClusterConfig: {
          rayVersion: '2.46.0',
          headGroupSpec: {
            rayStartParams: {},
            template: {
              spec: {
                containers: [
                  {
                    name: 'ray-head',
                    image: 'rayproject/ray:2.46.0',
                    resources: { limits: { cpu: 2, memory: '2Gi' } },
                  },
                ],
              },
            },
          },
          workerGroupSpecs: [
            {
              replicas: 1,
              minReplicas: 1,
              maxReplicas: 5,
              groupName: 'small-group',
              rayStartParams: {},
              template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0' }] } },
            },
          ],
        },
      },
    },
  },
  {
    resource: 'raycluster',
    name: 'raycluster-kuberay',
    header: ['NAME', 'DESIRED WORKERS', 'AVAILABLE WORKERS', 'CPUS', 'MEMORY', 'GPUS', 'STATUS', 'AGE'],
    obj: {
      apiVersion: 'ray.io/v1',
      kind: 'RayCluster',
      spec: {
        headGroupSpec: {
          rayStartParams: {},
          template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0' }] } },
        },
      },
    },
  },
  {
    resource: 'so',
    name: 'prometheus-scaledobject',
    header: [
      'NAME',
      'SCALETARGETKIND',
      'SCALETARGETNAME',
      'MIN',
      'MAX',
      'TRIGGERS',
      'AUTHENTICATION',
      'READY',
      'ACTIVE',
      'FALLBACK',
      'AGE',
    ],
    obj: {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      spec: {
        scaleTargetRef: { name: 'my-deployment' },
        minReplicaCount: 0,
        maxReplicaCount: 10,
        triggers: [
          {
            type: 'prometheus',
            metadata: {
              serverAddress: 'http://prometheus:9090',
              threshold: '100',
              query: 'sum(rate(http_requests_total[2m]))',
            },
          },
        ],
      },
    },
  },
  {
    resource: 'gc',
    name: 'example-class',
    header: ['NAME', 'CONTROLLER', 'ACCEPTED', 'AGE'],
    obj: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      spec: { controllerName: 'example.com/gateway-controller' },
    },
  },
  {
    resource: 'gtw',
    name: 'example-gateway',
    header: ['NAME', 'CLASS', 'ADDRESS', 'PROGRAMMED', 'AGE'],
    obj: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      spec: { gatewayClassName: 'example-class', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
    },
  },
  {
    resource: 'httproute',
    name: 'example-route',
    header: ['NAME', 'HOSTNAMES', 'AGE'],
    obj: {
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'HTTPRoute',
      spec: {
        parentRefs: [{ name: 'example-gateway' }],
        hostnames: ['www.example.com'],
        rules: [{ backendRefs: [{ name: 'example-svc', port: 80 }] }],
      },
    },
  },
  {
    resource: 'refgrant',
    name: 'allow-routes',
    header: ['NAME', 'AGE'],
    obj: {
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'apps' }],
        to: [{ group: '', kind: 'Service' }],
      },
    },
  },
];

describe('external CRDs with real kubectl', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  before(async () => {
    cluster = await startTestCluster();
    client = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'crd-test' });
    for (const crd of externalCrds()) await ensureCrd(client, crd);
    await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const docs = samples
      .map((s) => stringify({ ...s.obj, metadata: { name: s.name, namespace: s.resource === 'gc' ? undefined : NS } }))
      .join('---\n');
    await cluster.k(['apply', '-f', '-'], docs);
  });
  after(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('every CRD is served with its upstream group, kind, scope and names', () => {
    const names = externalCrds().map(
      (c) => `${c.metadata.name} ${c.spec.scope} ${(c.spec.names.shortNames ?? []).join(',')}`,
    );
    assert.deepEqual(names, [
      'inferenceservices.serving.kserve.io Namespaced isvc',
      'gatewayclasses.gateway.networking.k8s.io Cluster gc',
      'gateways.gateway.networking.k8s.io Namespaced gtw',
      'httproutes.gateway.networking.k8s.io Namespaced ',
      'referencegrants.gateway.networking.k8s.io Namespaced refgrant',
      'inferencepools.inference.networking.k8s.io Namespaced ',
      'workspaces.kaito.sh Namespaced wk,wks',
      'dynamographdeployments.nvidia.com Namespaced dgd',
      'rayclusters.ray.io Namespaced ',
      'rayservices.ray.io Namespaced ',
      'scaledobjects.keda.sh Namespaced so',
    ]);
  });

  for (const s of samples) {
    it(`kubectl get ${s.resource} prints the upstream columns`, async () => {
      const out = await cluster.k(['get', s.resource, ...(s.resource === 'gc' ? [] : ['-n', NS])]);
      const [header, row] = out.trimEnd().split('\n');
      assert.deepEqual(header?.trim().split(/\s{2,}/), s.header);
      assert.ok(row?.startsWith(s.name), row);
    });
  }

  it('categories: gateway-api lists the Gateway API objects, all includes the Ray objects', async () => {
    const gw = await cluster.k(['get', 'gateway-api', '-A', '-o', 'name']);
    for (const n of [
      'gatewayclass.gateway.networking.k8s.io/example-class',
      'gateway.gateway.networking.k8s.io/example-gateway',
      'httproute.gateway.networking.k8s.io/example-route',
    ])
      assert.match(gw, new RegExp(n));
    const all = await cluster.k(['get', 'all', '-n', NS, '-o', 'name']);
    assert.match(all, /rayservice\.ray\.io\/rayservice-sample/);
    assert.match(all, /raycluster\.ray\.io\/raycluster-kuberay/);
    const ws = await cluster.k(['get', 'workspace', '-n', NS, '-o', 'name']);
    assert.match(ws, /workspace\.kaito\.sh\/workspace-falcon-7b/);
  });

  it('server-side defaults from the upstream schemas are applied', async () => {
    const route = JSON.parse(await cluster.k(['get', 'httproute', 'example-route', '-n', NS, '-o', 'json']));
    assert.deepEqual(route.spec.parentRefs[0], {
      name: 'example-gateway',
      group: 'gateway.networking.k8s.io',
      kind: 'Gateway',
    });
    assert.deepEqual(route.spec.rules[0].matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
    assert.equal(route.spec.rules[0].backendRefs[0].weight, 1);
    const ws = JSON.parse(await cluster.k(['get', 'wk', 'workspace-falcon-7b', '-n', NS, '-o', 'json']));
    assert.equal(ws.resource.count, 1);
    assert.equal(ws.inference.preset.accessMode, 'public');
    const gw = JSON.parse(await cluster.k(['get', 'gtw', 'example-gateway', '-n', NS, '-o', 'json']));
    assert.equal(gw.status.conditions.find((c: { type: string }) => c.type === 'Programmed').reason, 'Pending');
  });

  it('rejects what the upstream schemas reject', async () => {
    const bad = [
      {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: 'no-predictor', namespace: NS },
        spec: {},
      },
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'no-listeners', namespace: NS },
        spec: { gatewayClassName: 'x' },
      },
      {
        apiVersion: 'nvidia.com/v1alpha1',
        kind: 'DynamoGraphDeployment',
        metadata: { name: 'bad-backend', namespace: NS },
        spec: { backendFramework: 'llamacpp' },
      },
    ];
    for (const b of bad) {
      const r = await cluster.kubectl(['apply', '-f', '-'], { input: stringify(b) });
      assert.notEqual(r.code, 0, `${b.kind} ${b.metadata.name} was accepted`);
      assert.match(r.stderr, /Required value|Unsupported value/);
    }
  });
});

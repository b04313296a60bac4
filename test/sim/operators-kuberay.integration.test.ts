// The simulated KubeRay controllers on the test cluster: a RayService brings up its RayCluster
// (head and worker Deployments, RayClusterProvisioned), serves its applications and reports Running; a
// head pod that cannot pull its image ends in serviceStatus Failed with DEPLOY_FAILED applications; an
// invalid serveConfigV2 fails validation; a changed cluster config switches to a new cluster.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RayClusters, RayServices, SimDeployments, SimServices } from '@modelplane/sim/operators';
import { serveApps } from '@modelplane/sim/operators/kuberay';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const NS = 'ray';

const SERVE_CONFIG = `applications:
  - name: llm
    route_prefix: /
    import_path: ray.serve.llm:build_openai_app
    deployments:
      - name: LLMDeployment
        num_replicas: 1
`;

function rayService(
  name: string,
  opts: { annotations?: Record<string, string>; workerImage?: string; serveConfig?: string } = {},
) {
  return {
    apiVersion: 'ray.io/v1',
    kind: 'RayService',
    metadata: { name, namespace: NS, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      serveConfigV2: opts.serveConfig ?? SERVE_CONFIG,
      rayClusterConfig: {
        rayVersion: '2.55.0',
        headGroupSpec: {
          rayStartParams: { 'dashboard-host': '0.0.0.0' },
          template: {
            spec: {
              containers: [
                {
                  name: 'ray-head',
                  image: 'rayproject/ray-llm:2.55.0-py311-cu128',
                  resources: { limits: { cpu: '4', memory: '16Gi' } },
                },
              ],
            },
          },
        },
        workerGroupSpecs: [
          {
            groupName: 'gpu-workers',
            replicas: 2,
            minReplicas: 2,
            maxReplicas: 2,
            rayStartParams: {},
            template: {
              spec: {
                containers: [
                  {
                    name: 'ray-worker',
                    image: opts.workerImage ?? 'rayproject/ray-llm:2.55.0-py311-cu128',
                    resources: { limits: { memory: '32Gi', 'nvidia.com/gpu': '2' } },
                  },
                ],
              },
            },
          },
        ],
      },
    },
  };
}

describe('serveConfigV2 parsing', () => {
  it('lists applications and their deployments, naming a nameless single app "default"', () => {
    assert.deepEqual(serveApps(SERVE_CONFIG), [{ name: 'llm', deployments: ['LLMDeployment'] }]);
    assert.deepEqual(serveApps('applications:\n  - import_path: a:b\n'), [
      { name: 'default', deployments: ['default'] },
    ]);
    assert.deepEqual(serveApps(''), []);
    assert.throws(() => serveApps('applications: 3'), /must be a list/);
  });
});

describe('KubeRay simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['kuberay'] });
    await ensureNamespace(c.client, NS);
  });
  after(async () => c?.close());

  const rayStatus = (
    name: string,
    what: string,
    pred: (st: Record<string, any>, rs: Awaited<ReturnType<typeof getObj>>) => boolean,
  ) =>
    eventually(what, async () => {
      const rs = await getObj(c.client, RayServices, name, NS);
      return rs && pred((rs.status ?? {}) as Record<string, any>, rs) ? rs : undefined;
    });

  it('a RayService provisions its RayCluster, deploys its applications and reports Running', async () => {
    await c.client.create(rayService('llama'));
    const rs = await rayStatus('llama', 'serviceStatus Running', (st) => st.serviceStatus === 'Running');
    const st = rs!.status as Record<string, any>;
    assert.equal(condition(rs, 'Ready')?.status, 'True');
    assert.equal(condition(rs, 'Ready')?.reason, 'NonZeroServeEndpoints');
    assert.equal(condition(rs, 'UpgradeInProgress')?.status, 'False');
    assert.equal(st.numServeEndpoints, 3, 'head + 2 workers run a Serve proxy');
    assert.equal(st.activeServiceStatus.applicationStatuses.llm.status, 'RUNNING');
    assert.equal(
      st.activeServiceStatus.applicationStatuses.llm.serveDeploymentStatuses.LLMDeployment.status,
      'HEALTHY',
    );
    const clusterName = st.activeServiceStatus.rayClusterName as string;
    assert.match(clusterName, /^llama-raycluster-[a-z0-9]{5}$/);

    const rc = await c.client.get(RayClusters, clusterName, NS);
    assert.equal(condition(rc, 'RayClusterProvisioned')?.status, 'True');
    assert.equal(condition(rc, 'HeadPodReady')?.status, 'True');
    const rcs = rc.status as Record<string, any>;
    assert.equal(rcs.state, 'ready');
    assert.equal(rcs.desiredWorkerReplicas, 2);
    assert.equal(rcs.readyWorkerReplicas, 2);
    assert.equal(rcs.desiredGPU, '4');
    assert.equal(rcs.desiredMemory, '80Gi');

    const workers = await c.client.get(SimDeployments, `${clusterName}-gpu-workers-worker`, NS);
    assert.equal(workers.spec?.replicas, 2);
    assert.equal(workers.spec?.template?.spec?.containers[0]?.resources?.limits?.['nvidia.com/gpu'], '2');
    const serve = await c.client.get(SimServices, 'llama-serve-svc', NS);
    assert.deepEqual(serve.spec?.selector, { 'ray.io/cluster': clusterName, 'ray.io/serve': 'true' });
    assert.deepEqual(
      ((serve.spec?.ports ?? []) as Array<{ port: number }>).map((p) => p.port),
      [8000],
    );
  });

  it('a head pod that cannot pull its image fails the service with DEPLOY_FAILED applications', async () => {
    await c.client.create(rayService('broken', { annotations: { 'sim.modelplane.io/fail': 'ImagePullBackOff' } }));
    const rs = await rayStatus('broken', 'serviceStatus Failed', (st) => st.serviceStatus === 'Failed');
    const app = (rs!.status as Record<string, any>).pendingServiceStatus.applicationStatuses.llm;
    assert.equal(app.status, 'DEPLOY_FAILED');
    // the kubelet reports ErrImagePull on the first attempt and ImagePullBackOff after it
    assert.match(app.message, /ErrImagePull|ImagePullBackOff/);
    assert.equal(app.serveDeploymentStatuses.LLMDeployment.status, 'UNHEALTHY');
    assert.equal(condition(rs, 'Ready')?.status, 'False');
    assert.match(condition(rs, 'Ready')?.message ?? '', /ErrImagePull|ImagePullBackOff/);
  });

  it('an unparseable serveConfigV2 fails validation', async () => {
    await c.client.create(rayService('badconfig', { serveConfig: 'applications: [unclosed' }));
    const rs = await rayStatus(
      'badconfig',
      'RayServiceValidationFailed',
      (_st, o) => condition(o, 'Ready')?.reason === 'RayServiceValidationFailed',
    );
    assert.equal((rs!.status as Record<string, any>).serviceStatus, 'Failed');
    assert.match(condition(rs, 'Ready')?.message ?? '', /serveConfigV2|YAML|Flow sequence/i);
  });

  it('a changed rayClusterConfig switches to a new cluster and deletes the old one', async () => {
    await c.client.create(rayService('upgrade'));
    const first = await rayStatus('upgrade', 'Running', (st) => st.serviceStatus === 'Running');
    const oldCluster = (first!.status as Record<string, any>).activeServiceStatus.rayClusterName as string;
    await c.client.patch(
      RayServices,
      'upgrade',
      NS,
      [
        {
          op: 'replace',
          path: '/spec/rayClusterConfig/workerGroupSpecs/0/template/spec/containers/0/image',
          value: 'rayproject/ray-llm:2.56.0',
        },
      ],
      'json',
    );
    const switched = await rayStatus(
      'upgrade',
      'a new active cluster',
      (st) =>
        st.activeServiceStatus?.rayClusterName &&
        st.activeServiceStatus.rayClusterName !== oldCluster &&
        st.serviceStatus === 'Running',
    );
    assert.equal(condition(switched, 'UpgradeInProgress')?.status, 'False');
    await eventually(
      'old cluster deleted',
      async () => (await getObj(c.client, RayClusters, oldCluster, NS)) === undefined,
    );
  });
});

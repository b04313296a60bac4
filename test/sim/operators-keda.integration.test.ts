// The simulated KEDA operator and KServe's KEDA autoscaler class on the test cluster: a
// ScaledObject gets its keda-hpa-<name> HPA and conditions; a missing target fails the check; an
// InferenceService with autoscalerClass keda gets a ScaledObject for its predictor.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceServices, ScaledObjects, SimHPAs } from '@modelplane/sim/operators';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const NS = 'scaling';

describe('KEDA simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['keda', 'kserve'] });
    await ensureNamespace(c.client, NS);
  });
  after(async () => c?.close());

  it('a ScaledObject on a Deployment gets its HPA and is Ready but not Active', async () => {
    await c.client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    await c.client.create({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { name: 'web' },
        minReplicaCount: 1,
        maxReplicaCount: 5,
        triggers: [
          {
            type: 'prometheus',
            metadata: { serverAddress: 'http://prom:9090', query: 'sum(rate(x[1m]))', threshold: '10' },
          },
        ],
      },
    });
    const so = await eventually('ScaledObject Ready', async () => {
      const o = await getObj(c.client, ScaledObjects, 'web', NS);
      return condition(o, 'Ready')?.status === 'True' && condition(o, 'Active')?.status === 'False' ? o : undefined;
    });
    const st = so.status as Record<string, unknown>;
    assert.equal(st.hpaName, 'keda-hpa-web');
    assert.equal(st.scaleTargetKind, 'apps/v1.Deployment');
    assert.equal(st.originalReplicaCount, 2);
    assert.deepEqual(st.externalMetricNames, ['s0-prometheus']);
    const hpa = await eventually('HPA status', async () => {
      const h = await getObj(c.client, SimHPAs, 'keda-hpa-web', NS);
      return (h?.status as { currentReplicas?: number } | undefined)?.currentReplicas === 2 ? h : undefined;
    });
    assert.equal(hpa.spec?.maxReplicas, 5);
    assert.equal(hpa.status?.desiredReplicas, 2);
  });

  it('a ScaledObject whose target does not exist fails its check', async () => {
    await c.client.create({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'ghost', namespace: NS },
      spec: {
        scaleTargetRef: { name: 'no-such-deployment' },
        triggers: [{ type: 'cpu', metricType: 'Utilization', metadata: { value: '60' } }],
      },
    });
    const so = await eventually('Ready=False', async () => {
      const o = await getObj(c.client, ScaledObjects, 'ghost', NS);
      return condition(o, 'Ready')?.status === 'False' ? o : undefined;
    });
    assert.equal(condition(so, 'Ready')?.reason, 'ScaledObjectCheckFailed');
    assert.match(condition(so, 'Ready')?.message ?? '', /no-such-deployment not found/);
  });

  it('an InferenceService with autoscalerClass keda gets a ScaledObject for its predictor', async () => {
    await c.client.create({
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: 'aim', namespace: NS, annotations: { 'serving.kserve.io/autoscalerClass': 'keda' } },
      spec: {
        predictor: {
          minReplicas: 1,
          maxReplicas: 3,
          autoScaling: {
            metrics: [
              {
                type: 'PodMetric',
                podmetric: {
                  metric: {
                    backend: 'opentelemetry',
                    metricNames: ['vllm:num_requests_running'],
                    query: 'vllm:num_requests_running',
                    operationOverTime: 'avg',
                  },
                  target: { type: 'Value', value: '4' },
                },
              },
            ],
          },
          containers: [{ name: 'kserve-container', image: 'ghcr.io/amd/aim:latest', ports: [{ containerPort: 8000 }] }],
        },
      },
    });
    const so = await eventually('predictor ScaledObject Ready', async () => {
      const o = await getObj(c.client, ScaledObjects, 'aim-predictor', NS);
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    const spec = so.spec as {
      minReplicaCount: number;
      maxReplicaCount: number;
      triggers: Array<{ type: string; metadata: Record<string, string> }>;
    };
    assert.equal(spec.minReplicaCount, 1);
    assert.equal(spec.maxReplicaCount, 3);
    assert.equal(spec.triggers[0]?.type, 'external');
    assert.equal(spec.triggers[0]?.metadata.metricQuery, 'vllm:num_requests_running');
    assert.equal(spec.triggers[0]?.metadata.targetValue, '4');
    assert.ok(
      await eventually('keda-hpa for the predictor', () => getObj(c.client, SimHPAs, 'keda-hpa-aim-predictor', NS)),
    );
    await eventually(
      'the InferenceService is Ready',
      async () => condition(await getObj(c.client, InferenceServices, 'aim', NS), 'Ready')?.status === 'True',
    );

    await c.client.patch(
      InferenceServices,
      'aim',
      NS,
      { metadata: { annotations: { 'serving.kserve.io/autoscalerClass': 'none' } } },
      'merge',
    );
    await eventually(
      'ScaledObject removed with the keda class',
      async () => (await getObj(c.client, ScaledObjects, 'aim-predictor', NS)) === undefined,
    );
  });
});

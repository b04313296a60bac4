// An AIMService's replicas (docs/aim.md, "Replicas and autoscaling"): fixed or autoscaled through KEDA, the
// InferenceService's annotations and range, and status.runtime from the KEDA HPA or the spec. Pure, table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { replicaPlan, runtimeStatus } from '../../../src/controllers/aim/service/replicas.ts';

const METRICS = {
  metrics: [
    {
      type: 'PodMetric' as const,
      podmetric: {
        metric: { backend: 'opentelemetry' as const, query: 'vllm:num_requests_running' },
        target: { type: 'Value' as const, value: '1' },
      },
    },
  ],
};

describe('replicaPlan', () => {
  const cases: Array<{ name: string; spec: Parameters<typeof replicaPlan>[0]; want: Record<string, unknown> }> = [
    {
      name: 'nothing set: 1 fixed replica, no autoscaler',
      spec: {},
      want: { autoscaled: false, min: 1, max: 1, class: 'none' },
    },
    { name: 'replicas: 3 fixed', spec: { replicas: 3 }, want: { autoscaled: false, min: 3, max: 3, class: 'none' } },
    {
      name: 'replicas: 0 scales to zero, fixed',
      spec: { replicas: 0 },
      want: { autoscaled: false, min: 0, max: 0, class: 'none' },
    },
    {
      name: 'min and max: KEDA between them',
      spec: { minReplicas: 1, maxReplicas: 3 },
      want: { autoscaled: true, min: 1, max: 3, class: 'keda' },
    },
    {
      name: 'only max: min defaults to 1',
      spec: { maxReplicas: 4 },
      want: { autoscaled: true, min: 1, max: 4, class: 'keda' },
    },
    {
      name: 'only min: max defaults to min',
      spec: { minReplicas: 2 },
      want: { autoscaled: true, min: 2, max: 2, class: 'keda' },
    },
    {
      name: 'only autoScaling: 1..1 on the metrics',
      spec: { autoScaling: METRICS },
      want: { autoscaled: true, min: 1, max: 1, class: 'keda' },
    },
    {
      name: 'max below min (stored before the rule): max raised to min',
      spec: { minReplicas: 3, maxReplicas: 2 },
      want: { autoscaled: true, min: 3, max: 3, class: 'keda' },
    },
    {
      name: 'autoscaling wins over replicas',
      spec: { replicas: 5, minReplicas: 2, maxReplicas: 6 },
      want: { autoscaled: true, min: 2, max: 6, class: 'keda' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const p = replicaPlan(c.spec, 'chat', 8000);
      assert.deepEqual(
        { autoscaled: p.autoscaled, min: p.min, max: p.max, class: p.annotations['serving.kserve.io/autoscalerClass'] },
        c.want,
      );
      if (p.autoscaled) {
        assert.equal(p.annotations['sidecar.opentelemetry.io/inject'], 'chat-predictor');
        assert.equal(p.annotations['prometheus.kserve.io/port'], '8000');
      } else assert.deepEqual(Object.keys(p.annotations), ['serving.kserve.io/autoscalerClass']);
    });

  it('the metrics are copied to the predictor, not shared', () => {
    const spec = { autoScaling: METRICS };
    const p = replicaPlan(spec, 'chat', 8000);
    assert.deepEqual(p.autoScaling, METRICS);
    assert.notEqual(p.autoScaling, spec.autoScaling);
  });
});

describe('runtimeStatus', () => {
  const hpa = (status: object): KubeObject =>
    ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, status }) as KubeObject;
  const cases: Array<{ name: string; spec: Parameters<typeof replicaPlan>[0]; hpa?: KubeObject; want: object }> = [
    {
      name: 'fixed default: 1/1/1/1 shown as "1"',
      spec: {},
      want: { currentReplicas: 1, desiredReplicas: 1, minReplicas: 1, maxReplicas: 1, replicas: '1' },
    },
    {
      name: 'autoscaled, no HPA yet: the minimum, shown as a range',
      spec: { minReplicas: 1, maxReplicas: 3 },
      want: { currentReplicas: 1, desiredReplicas: 1, minReplicas: 1, maxReplicas: 3, replicas: '1/1 (1-3)' },
    },
    {
      name: "autoscaled: the HPA's current and desired",
      spec: { minReplicas: 1, maxReplicas: 5 },
      hpa: hpa({ currentReplicas: 2, desiredReplicas: 4 }),
      want: { currentReplicas: 2, desiredReplicas: 4, minReplicas: 1, maxReplicas: 5, replicas: '2/4 (1-5)' },
    },
    {
      name: 'fixed: an HPA left over is ignored',
      spec: { replicas: 2 },
      hpa: hpa({ currentReplicas: 7, desiredReplicas: 7 }),
      want: { currentReplicas: 2, desiredReplicas: 2, minReplicas: 2, maxReplicas: 2, replicas: '2' },
    },
  ];
  for (const c of cases)
    it(c.name, () => assert.deepEqual(runtimeStatus(replicaPlan(c.spec, 'chat', 8000), c.hpa), c.want));
});

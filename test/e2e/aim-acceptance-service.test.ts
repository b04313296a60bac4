// AIMService acceptance scenarios (docs/aim.md, "Acceptance scenarios") on `modelplane dev`'s cluster with
// the whole `aim` controller set: each scenario in its own namespace of one shared cluster. Upstream
// objects are frozen where the scenario needs a state the chain would not hold by itself (a model held
// Ready or Failed, a template held Ready with no discovery).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import {
  AIM_API,
  applyFrozen,
  cond,
  condSummary,
  Kinds,
  kubectlApply,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';

const SCENARIO_NAMESPACES = [
  'all-ready',
  'model-failed',
  'template-not-found',
  'model-not-found',
  'tpl-deleted',
  'replicas',
];
const ABSENT_IMAGE = 'docker.io/amdenterpriseai/non-existant-image:v1';

const frozenModel = (namespace: string, status: Record<string, unknown>) => ({
  obj: {
    apiVersion: AIM_API,
    kind: 'AIMModel',
    metadata: { name: 'test-model', namespace },
    spec: { image: ABSENT_IMAGE },
  },
  status,
});

/** a template held Ready with a discovered profile; `gpus` more than a node has keeps the predictor Pending */
const frozenTemplate = (namespace: string, name: string, gpus: number) => ({
  obj: {
    apiVersion: AIM_API,
    kind: 'AIMServiceTemplate',
    metadata: { name, namespace },
    spec: { modelName: 'test-model', hardware: { gpu: { model: 'MI300X', requests: gpus } } },
  },
  status: { status: 'Ready', profile: { metadata: { type: 'optimized', gpu: 'MI300X', gpuCount: gpus } } },
});

const service = (namespace: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: AIM_API,
  kind: 'AIMService',
  metadata: { name, namespace },
  spec: { replicas: 1, ...spec },
});

describe('AIMService acceptance scenarios on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const freeze = (f: { obj: object; status: Record<string, unknown> }) =>
    applyFrozen(admin, f.obj as Parameters<typeof applyFrozen>[1], f.status);

  before(async () => {
    cluster = await startAimCluster('aim-acceptance-service', { namespaces: SCENARIO_NAMESPACES });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('all ready (frozen model and template): Starting, ModelReady=True/ModelResolved, TemplateReady=True/Resolved, resolvedTemplate names the namespaced template', async () => {
    const ns = 'all-ready';
    await freeze(frozenModel(ns, { status: 'Ready' }));
    // 16 GPUs: more than any node has, so the predictor stays Pending as on a cluster without free GPUs
    await freeze(frozenTemplate(ns, 'test-template', 16));
    await kubectlApply(cluster, service(ns, 'test-service', { model: { name: 'test-model' } }));
    const s = await waitForObject(
      admin,
      Kinds.Services,
      'test-service',
      ns,
      'Starting with model and template resolved',
      (s) => s.status?.status === 'Starting' && s.status?.resolvedTemplate !== undefined,
    );
    assert.equal(condSummary(s, 'ModelReady'), 'ModelReady=True/ModelResolved');
    assert.equal(condSummary(s, 'TemplateReady'), 'TemplateReady=True/Resolved');
    assert.equal(s.status?.resolvedTemplate?.name, 'test-template');
    assert.equal(s.status?.resolvedTemplate?.scope, 'Namespace');
    const isvc = await admin.get(Kinds.InferenceServices, 'test-service', ns);
    assert.equal(isvc.spec.predictor.containers[0].resources.limits['amd.com/gpu'], '16', "the template's GPUs");
  });

  it('model failed (frozen): Failed, ModelReady=False/ModelNotReady', async () => {
    const ns = 'model-failed';
    await freeze(frozenModel(ns, { status: 'Failed' }));
    await kubectlApply(cluster, service(ns, 'test-service', { model: { name: 'test-model' } }));
    const s = await waitForObject(
      admin,
      Kinds.Services,
      'test-service',
      ns,
      'Failed',
      (s) => s.status?.status === 'Failed',
    );
    assert.equal(condSummary(s, 'ModelReady'), 'ModelReady=False/ModelNotReady');
    assert.match(cond(s, 'ModelReady')?.message, /AIMModel model-failed\/test-model is Failed/);
  });

  it('template not found (frozen Ready model with no template): Pending, ModelReady=True, TemplateReady=Unknown/TemplateNotFound, nothing created', async () => {
    const ns = 'template-not-found';
    await freeze(frozenModel(ns, { status: 'Ready' }));
    await kubectlApply(cluster, service(ns, 'test-service', { model: { name: 'test-model' } }));
    const s = await waitForObject(
      admin,
      Kinds.Services,
      'test-service',
      ns,
      'Pending with TemplateNotFound',
      (s) => s.status?.status === 'Pending' && cond(s, 'TemplateReady')?.reason === 'TemplateNotFound',
    );
    assert.equal(condSummary(s, 'ModelReady'), 'ModelReady=True/ModelResolved');
    // a Pending component's condition is Unknown, not False (docs/controllers.md §4): the
    // template may still appear, and the service waits for it rather than failing
    assert.equal(cond(s, 'TemplateReady')?.status, 'Unknown');
    assert.match(cond(s, 'TemplateReady')?.message, /no AIMServiceTemplate or AIMClusterServiceTemplate exists/);
    assert.equal(await admin.getOrUndefined(Kinds.InferenceServices, 'test-service', ns), undefined);
  });

  it('model not found (explicit template): Failed, ModelReady=False/ModelNotFound naming both kinds', async () => {
    const ns = 'model-not-found';
    await kubectlApply(
      cluster,
      service(ns, 'test-service', { model: { name: 'no-such-model' }, template: { name: 'some-template' } }),
    );
    const s = await waitForObject(
      admin,
      Kinds.Services,
      'test-service',
      ns,
      'Failed',
      (s) => s.status?.status === 'Failed',
    );
    assert.equal(condSummary(s, 'ModelReady'), 'ModelReady=False/ModelNotFound');
    assert.match(
      cond(s, 'ModelReady')?.message,
      /spec\.model\.name: no AIMModel model-not-found\/no-such-model and no AIMClusterModel no-such-model exist/,
    );
    assert.equal(await admin.getOrUndefined(Kinds.InferenceServices, 'test-service', ns), undefined);
  });

  it('a template deleted under a running service (named, and selected): the service keeps Running, TemplateReady says the template was deleted, the InferenceService is left as built', async () => {
    const ns = 'tpl-deleted';
    await freeze(frozenModel(ns, { status: 'Ready' }));
    await freeze(frozenTemplate(ns, 'named-template', 1));
    await kubectlApply(
      cluster,
      service(ns, 'named', { model: { name: 'test-model' }, template: { name: 'named-template' } }),
    );
    await kubectlApply(cluster, service(ns, 'selected', { model: { name: 'test-model' } }));
    for (const name of ['named', 'selected'])
      await waitForObject(admin, Kinds.Services, name, ns, 'Running', (s) => s.status?.status === 'Running');
    const before = await admin.get(Kinds.InferenceServices, 'named', ns);
    await cluster.k(['delete', 'aimtpl', 'named-template', '-n', ns]);
    for (const name of ['named', 'selected']) {
      const s = await waitForObject(
        admin,
        Kinds.Services,
        name,
        ns,
        'TemplateReady reason TemplateDeleted',
        (s) => cond(s, 'TemplateReady')?.reason === 'TemplateDeleted',
      );
      assert.equal(s.status?.status, 'Running', `${name}: still Running`);
      assert.equal(cond(s, 'TemplateReady')?.status, 'True');
      assert.match(
        cond(s, 'TemplateReady')?.message,
        /AIMServiceTemplate tpl-deleted\/named-template was deleted; the running InferenceService keeps serving/,
      );
      assert.equal(cond(s, 'ConfigValid')?.status ?? 'True', 'True', 'no ReferenceNotFound');
      assert.equal(s.status?.resolvedTemplate?.name, 'named-template', 'the reference is kept');
    }
    // a spec change still reaches the InferenceService, which keeps what the template gave it
    await cluster.k(['patch', 'aimsvc', 'named', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    // its own change rolls the predictor out (briefly Starting), then it runs again with the template gone
    const s = await waitForObject(
      admin,
      Kinds.Services,
      'named',
      ns,
      'generation 2 observed, Running',
      (s) => s.status?.observedGeneration === 2 && s.status?.status === 'Running',
    );
    assert.equal(cond(s, 'TemplateReady')?.reason, 'TemplateDeleted');
    const after = await waitForObject(
      admin,
      Kinds.InferenceServices,
      'named',
      ns,
      'two replicas',
      (i) => i.spec.predictor.minReplicas === 2,
    );
    assert.deepEqual(
      { ...after.spec.predictor, minReplicas: 1, maxReplicas: 1 },
      before.spec.predictor,
      "only the replicas changed: the template's part stays as built",
    );
  });

  describe('replicas and autoscaling (one model through the whole chain)', () => {
    const ns = 'replicas';
    const isvcOf = (name: string) => admin.get(Kinds.InferenceServices, name, ns);
    const running = (name: string, ok: (s: Record<string, any>) => boolean = () => true) =>
      waitForObject(admin, Kinds.Services, name, ns, 'Running', (s) => s.status?.status === 'Running' && ok(s), {
        timeoutMs: 60_000,
      });

    before(async () => {
      await kubectlApply(cluster, {
        apiVersion: AIM_API,
        kind: 'AIMModel',
        metadata: { name: 'test-model', namespace: ns },
        spec: { image: QWEN8_IMAGE },
      });
      await waitForObject(admin, Kinds.Models, 'test-model', ns, 'Ready', (m) => m.status?.status === 'Ready', {
        timeoutMs: 60_000,
      });
    });

    it('no replica settings: the InferenceService has minReplicas 1 and autoscalerClass none; Running with runtime 1/1/1/1 shown as "1"', async () => {
      await kubectlApply(
        cluster,
        service(ns, 'default-replicas', { model: { name: 'test-model' }, replicas: undefined }),
      );
      const s = await running('default-replicas');
      const isvc = await isvcOf('default-replicas');
      assert.equal(isvc.metadata.labels?.['aim.eai.amd.com/service'], 'default-replicas');
      assert.equal(isvc.spec.predictor.minReplicas, 1);
      assert.equal(isvc.metadata.annotations?.['serving.kserve.io/autoscalerClass'], 'none');
      assert.deepEqual(s.status?.runtime, {
        currentReplicas: 1,
        desiredReplicas: 1,
        minReplicas: 1,
        maxReplicas: 1,
        replicas: '1',
      });
    });

    it('autoscaling: min 1, max 3 and a PodMetric reach the InferenceService with the KEDA annotations; Running with runtime 1..3', async () => {
      const autoScaling = {
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
              target: { type: 'Value', value: '1' },
            },
          },
        ],
      };
      await kubectlApply(
        cluster,
        service(ns, 'autoscaled', {
          model: { name: 'test-model' },
          replicas: undefined,
          minReplicas: 1,
          maxReplicas: 3,
          autoScaling,
        }),
      );
      const s = await running('autoscaled');
      const isvc = await isvcOf('autoscaled');
      assert.equal(isvc.metadata.annotations?.['serving.kserve.io/autoscalerClass'], 'keda');
      assert.equal(isvc.metadata.annotations?.['prometheus.kserve.io/port'], '8000');
      assert.equal(isvc.metadata.annotations?.['sidecar.opentelemetry.io/inject'], 'autoscaled-predictor');
      assert.equal(isvc.spec.predictor.minReplicas, 1);
      assert.equal(isvc.spec.predictor.maxReplicas, 3);
      assert.deepEqual(isvc.spec.predictor.autoScaling, autoScaling);
      assert.equal(s.status?.runtime?.minReplicas, 1);
      assert.equal(s.status?.runtime?.maxReplicas, 3);
      assert.match(s.status?.runtime?.replicas, /^\d+\/\d+ \(1-3\)$/);
    });

    it('autoscaling update: min 1..3 changed to 2..5 reaches the running InferenceService and status.runtime', async () => {
      const svc = (min: number, max: number) =>
        service(ns, 'rescaled', {
          model: { name: 'test-model' },
          replicas: undefined,
          minReplicas: min,
          maxReplicas: max,
        });
      await kubectlApply(cluster, svc(1, 3));
      await running('rescaled', (s) => s.status?.runtime?.maxReplicas === 3);
      assert.equal((await isvcOf('rescaled')).spec.predictor.maxReplicas, 3);
      await kubectlApply(cluster, svc(2, 5));
      const s = await running(
        'rescaled',
        (s) => s.status?.runtime?.minReplicas === 2 && s.status?.runtime?.maxReplicas === 5,
      );
      const isvc = await isvcOf('rescaled');
      assert.equal(isvc.spec.predictor.minReplicas, 2);
      assert.equal(isvc.spec.predictor.maxReplicas, 5);
      assert.equal(s.status?.observedGeneration, s.metadata.generation);
    });

    it('min above max is refused at admission, naming both fields', async () => {
      const r = await cluster.kubectl(
        ['apply', '-f', '-'],
        JSON.stringify(service(ns, 'bad-range', { model: { name: 'test-model' }, minReplicas: 4, maxReplicas: 2 })),
      );
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /spec\.maxReplicas must be at least spec\.minReplicas/);
    });
  });
});

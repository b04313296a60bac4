// Every serving stack's simulated pod answers the OpenAI API where the provider's status.endpoint points:
// the provider's object (KAITO Workspace, DynamoGraphDeployment, RayService) goes through the simulated
// operator's planner, a pod is made from the Deployment it plans, and servedModel must name the model the
// real stack reports and the port the endpoint's Service targets; a server started there must answer
// /v1/models and /v1/chat/completions (docs/llamastack.md, "Dev cluster").
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type InferenceServer, servedModel, startInferenceServer } from '@modelplane/sim/inference';
import { planComponent } from '@modelplane/sim/operators/dynamo';
import { planInference } from '@modelplane/sim/operators/kaito-workload';
import type { Deployment, Service, WithStatus } from '@modelplane/sim/operators/kinds';
import { rayClusterAnnotations } from '@modelplane/sim/operators/kuberay';
import { planRayCluster } from '@modelplane/sim/operators/kuberay-cluster';
import type { Pod } from '@modelplane/sim/workloads/kinds';
import type { ModelDeployment } from '../../src/apis/kubeairunway/index.ts';
import { graphDeploymentStatus } from '../../src/controllers/kubeairunway/providers/dynamo/status.ts';
import { graphDeploymentFor } from '../../src/controllers/kubeairunway/providers/dynamo/transform.ts';
import { workspaceStatus } from '../../src/controllers/kubeairunway/providers/kaito/status.ts';
import { workspaceFor } from '../../src/controllers/kubeairunway/providers/kaito/transform.ts';
import { rayServiceStatus } from '../../src/controllers/kubeairunway/providers/kuberay/status.ts';
import { rayServiceFor } from '../../src/controllers/kubeairunway/providers/kuberay/transform.ts';

function md(name: string, spec: Record<string, unknown>): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: 'quickstart', uid: `uid-${name}`, generation: 1 },
    spec,
  } as unknown as ModelDeployment;
}

/** the object as the server stores it (the planners write owner references to its uid) */
function stored<T>(obj: T): T {
  const o = obj as { metadata: { name?: string; uid?: string } };
  return { ...obj, metadata: { ...o.metadata, uid: `uid-${o.metadata.name}` } } as T;
}

/** a Running pod of the Deployment */
function podOf(d: Deployment): Pod {
  const t = d.spec!.template!;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${d.metadata.name}-x`,
      namespace: 'quickstart',
      labels: t.metadata?.labels,
      annotations: t.metadata?.annotations,
    },
    spec: t.spec,
  } as unknown as Pod;
}

/** the Service port's targetPort, the port the endpoint reaches on the pod */
function targetPort(svc: Service | undefined, port: number): number {
  const p = (svc?.spec?.ports as Array<{ port: number; targetPort: number }> | undefined)?.find((x) => x.port === port);
  assert.ok(p, `service ${svc?.metadata.name} has port ${port}`);
  return Number(p.targetPort);
}

const servers: InferenceServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));

async function assertAnswers(pod: Pod, host: string, wantModel: string, wantPort: number): Promise<void> {
  const served = servedModel(pod);
  assert.ok(served, `pod ${pod.metadata.name} serves a model`);
  assert.deepEqual({ model: served.model, port: served.port }, { model: wantModel, port: wantPort });
  const srv = await startInferenceServer({ host, port: served.port, model: served.model, capacity: served.capacity });
  servers.push(srv);
  const models = (await (await fetch(`http://${host}:${wantPort}/v1/models`)).json()) as {
    data: Array<{ id: string }>;
  };
  assert.deepEqual(
    models.data.map((m) => m.id),
    [wantModel],
  );
  const r = await fetch(`http://${host}:${wantPort}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: wantModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });
  assert.equal(r.status, 200);
  const body = (await r.json()) as { model: string; choices: Array<{ message: { content: string } }> };
  assert.equal(body.model, wantModel);
  assert.ok(body.choices[0]!.message.content.length > 0);
}

describe('simulated serving pods answer the OpenAI API at the provider endpoint', () => {
  it('KAITO llama.cpp template (the quickstart gemma-cpu): the Hugging Face model on the Service target port', async () => {
    const m = md('gemma-cpu', {
      model: { id: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
      engine: { type: 'llamacpp' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      resources: { cpu: '8', memory: '16Gi' },
    });
    const ws = stored(workspaceFor(m)) as unknown as WithStatus & { resource: object; inference: object };
    const plan = planInference(ws, ws.resource, ws.inference);
    assert.ok(!('error' in plan));
    const endpoint = workspaceStatus(ws as never, m).endpoint!;
    assert.equal(plan.service.metadata.name, endpoint.service);
    await assertAnswers(
      podOf(plan.deployment),
      '127.244.251.1',
      'google/gemma-3-1b-it-qat-q4_0-gguf',
      targetPort(plan.service, endpoint.port!),
    );
  });

  it('KAITO vLLM preset: the preset name on port 5000', async () => {
    const m = md('phi', {
      model: { id: 'microsoft/Phi-4-mini-instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    });
    const ws = stored(workspaceFor(m)) as unknown as WithStatus & { resource: object; inference: object };
    const plan = planInference(ws, ws.resource, ws.inference);
    assert.ok(!('error' in plan));
    await assertAnswers(
      podOf(plan.deployment),
      '127.244.251.2',
      'microsoft/Phi-4-mini-instruct',
      targetPort(plan.service, workspaceStatus(ws as never, m).endpoint!.port!),
    );
  });

  it("Dynamo frontend: the workers' model on the frontend Service's port", async () => {
    const m = md('llama-1gpu', {
      model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
      engine: { type: 'vllm', contextLength: 8192 },
      resources: { gpu: { count: 1 }, memory: '32Gi' },
    });
    const dgd = stored(graphDeploymentFor(m)) as unknown as WithStatus & { spec: { services: Record<string, never> } };
    const endpoint = graphDeploymentStatus(dgd as never, m).endpoint!;
    const frontend = Object.keys(dgd.spec.services)
      .map((s) => planComponent(dgd, s, dgd.spec.services[s]!))
      .find((p) => p.type === 'frontend');
    assert.ok(frontend);
    assert.equal(frontend.service?.metadata.name, endpoint.service);
    await assertAnswers(
      podOf(frontend.deployment),
      '127.244.251.3',
      'meta-llama/Llama-3.1-8B-Instruct',
      targetPort(frontend.service, endpoint.port!),
    );
  });

  it("KubeRay: every Serve node answers with the Serve config's model_id on the serve port", async () => {
    const m = md('qwen-2gpu', {
      model: { id: 'Qwen/Qwen3-32B', servedName: 'qwen' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 2 }, memory: '64Gi' },
    });
    const rs = stored(rayServiceFor(m)) as unknown as WithStatus;
    const endpoint = rayServiceStatus(rs as never, m).endpoint!;
    const rc = stored({
      apiVersion: 'ray.io/v1',
      kind: 'RayCluster',
      metadata: {
        name: 'qwen-2gpu-raycluster-x',
        namespace: 'quickstart',
        labels: { 'ray.io/originated-from-crd': 'RayService' },
        ...rayClusterAnnotations(rs),
      },
      spec: rs.spec!.rayClusterConfig,
    } as WithStatus);
    const { head, workers } = planRayCluster(rc);
    assert.equal(endpoint.port, 8000);
    await assertAnswers(podOf(head.deployment), '127.244.251.4', 'qwen', 8000);
    await assertAnswers(podOf(workers[0]!.deployment), '127.244.251.5', 'qwen', 8000);
  });
});

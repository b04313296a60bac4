// The quickstart's Llama Stack chat on `modelplane dev`, as docs/llamastack.md tells a user to run it: the
// quickstart's namespace, CPU ModelDeployment (KAITO, llama.cpp) and LlamaStackDistribution applied with
// kubectl beside every controller; the ModelDeployment's endpoint answers /v1/models, and a chat completion
// sent to the simulated Llama Stack server reaches the gemma-cpu model and comes back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'quickstart';
const MODEL = 'google/gemma-3-1b-it-qat-q4_0-gguf';
const example = (file: string) => readFileSync(`examples/quickstart/${file}`, 'utf8');

describe('the quickstart Llama Stack chat on modelplane dev', { timeout: 180_000 }, () => {
  let cluster: DevTestCluster;

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), controllers: true });
    for (const f of [
      '00-namespace.yaml',
      '30-aim-runtime-config.yaml',
      '31-aim-model.yaml',
      '32-aim-service.yaml',
      '40-modeldeployment-cpu.yaml',
      '50-llamastack-distribution.yaml',
    ])
      await cluster.k(['apply', '-f', '-'], example(f));
  });
  after(async () => cluster?.stop());

  it('the gemma-cpu endpoint answers /v1/models with the model id', async () => {
    await cluster.k([
      'wait',
      'modeldeployment/gemma-cpu',
      '-n',
      NS,
      '--for=jsonpath={.status.phase}=Running',
      '--timeout=90s',
    ]);
    const endpoint = JSON.parse(
      await cluster.k(['get', 'modeldeployment', 'gemma-cpu', '-n', NS, '-o', 'jsonpath={.status.endpoint}']),
    ) as { service: string; port: number };
    // a Ready pod the Service selects, at its target port, as kube-proxy reaches it (not the Endpoints object:
    // kube-apiserver refuses the simulated pods' loopback IPs there, docs/real-kubernetes.md)
    const url = await waitFor('a served gemma-cpu endpoint', async () => {
      const svc = JSON.parse(await cluster.k(['get', 'service', endpoint.service, '-n', NS, '-o', 'json'])) as {
        spec: { selector?: Record<string, string>; ports: Array<{ port: number; targetPort?: number | string }> };
      };
      const selector = Object.entries(svc.spec.selector ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = JSON.parse(await cluster.k(['get', 'pods', '-n', NS, '-l', selector, '-o', 'json'])) as {
        items: Array<{ status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } }>;
      };
      const ip = pods.items.find((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        ?.status?.podIP;
      const target = svc.spec.ports.find((p) => p.port === endpoint.port)?.targetPort;
      const port = typeof target === 'number' ? target : endpoint.port;
      if (!ip || !selector) return undefined;
      const r = await fetch(`http://${ip}:${port}/v1/models`).catch(() => undefined);
      return r?.ok ? `http://${ip}:${port}` : undefined;
    });
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      models.data.map((m) => m.id),
      [MODEL],
    );
  });

  it('a chat completion sent to Llama Stack reaches gemma-cpu', async () => {
    await cluster.k(['wait', 'llsd/llama-stack', '-n', NS, '--for=jsonpath={.status.phase}=Ready', '--timeout=90s']);
    const server = await waitFor('the Llama Stack server registered for llama-stack-service', () =>
      cluster.dev.serviceEndpoints.resolve(NS, 'llama-stack-service', 8321),
    );
    const r = await waitFor('a chat completion', async () => {
      const res = await fetch(`${server}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: `gemma/${MODEL}`,
          messages: [{ role: 'user', content: 'Hello' }],
          max_tokens: 8,
        }),
      });
      return res.status === 200 ? res : undefined;
    });
    const body = (await r.json()) as { model: string; choices: Array<{ message: { role: string; content: string } }> };
    assert.equal(body.model, MODEL, 'the model the KAITO pod serves answered');
    assert.equal(body.choices[0]!.message.role, 'assistant');
    assert.ok(body.choices[0]!.message.content.length > 0);
  });
  it('an AIMService counts once its predictor lists the model: Ready with the right name, refused a wrong one', async () => {
    const llsd = (name: string, model: string) =>
      JSON.stringify({
        apiVersion: 'llamastack.io/v1alpha2',
        kind: 'LlamaStackDistribution',
        metadata: { name, namespace: NS },
        spec: {
          distribution: { name: 'remote-vllm' },
          providers: { inference: [{ id: 'qwen', provider: 'vllm', aimServiceRef: { name: 'qwen-chat' } }] },
          resources: { models: [{ name: model }] },
          disabled: ['vector_io'],
        },
      });
    await cluster.k(['apply', '-f', '-'], llsd('aim-chat', 'Qwen/Qwen3-8B'));
    await cluster.k(['apply', '-f', '-'], llsd('aim-wrong', 'Qwen/Not-This-One'));
    const condition = async (name: string) =>
      (
        JSON.parse(await cluster.k(['get', 'llsd', name, '-n', NS, '-o', 'json'])) as {
          status?: {
            phase?: string;
            conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
          };
        }
      ).status;
    const ready = await waitFor(
      'aim-chat Ready with ModelsAvailable',
      async () => {
        const s = await condition('aim-chat');
        return s?.phase === 'Ready' ? s : undefined;
      },
      { timeoutMs: 150_000, detail: () => condition('aim-chat') },
    );
    const ok = ready.conditions!.find((c) => c.type === 'ModelsAvailable')!;
    assert.equal(ok.status, 'True');
    assert.match(ok.message, /AIMService qwen-chat \(Qwen\/Qwen3-8B\)/);
    const wrong = await waitFor(
      'aim-wrong refused',
      async () => {
        const s = await condition('aim-wrong');
        return s?.conditions?.find((c) => c.type === 'ModelsAvailable' && c.status === 'False') ? s : undefined;
      },
      { timeoutMs: 60_000, detail: () => condition('aim-wrong') },
    );
    const bad = wrong.conditions!.find((c) => c.type === 'ModelsAvailable')!;
    assert.equal(bad.reason, 'ModelNotListed');
    assert.match(
      bad.message,
      /^spec\.providers\.inference\[0\]\.aimServiceRef: AIMService qwen-chat at http:\/\/[a-z0-9-]+-predictor\.quickstart\.svc\.cluster\.local:80\/v1 does not list model "Qwen\/Not-This-One" in \/v1\/models \(it lists Qwen\/Qwen3-8B\)/,
    );
    assert.notEqual(wrong.phase, 'Ready');
  });
});

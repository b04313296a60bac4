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
    for (const f of ['00-namespace.yaml', '40-modeldeployment-cpu.yaml', '50-llamastack-distribution.yaml'])
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
});

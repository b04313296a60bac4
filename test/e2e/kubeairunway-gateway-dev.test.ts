// KubeAIRunway's gateway integration on `modelplane dev` (docs/kubeairunway.md, "Gateway"): a Running
// ModelDeployment gets an HTTPRoute on the labelled shared Gateway, status.gateway and GatewayReady=True;
// turning spec.gateway.enabled off removes the route and says so; a foreign route of the same name is
// left alone and reported.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'quickstart';
const MODEL = 'google/gemma-3-1b-it-qat-q4_0-gguf';
const QWEN = 'Qwen/Qwen2.5-0.5B-Instruct';
const example = (file: string) => readFileSync(`examples/quickstart/${file}`, 'utf8');

interface Md {
  status?: {
    gateway?: { endpoint?: string; modelName?: string; gatewayNamespace?: string };
    endpoint?: { gatewayUrl?: string };
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

describe('KubeAIRunway gateway on modelplane dev', { timeout: 180_000 }, () => {
  let cluster: DevTestCluster;
  const md = async (name: string) => JSON.parse(await cluster.k(['get', 'md', name, '-n', NS, '-o', 'json'])) as Md;
  const gatewayReady = (m: Md) => m.status?.conditions?.find((c) => c.type === 'GatewayReady');
  const setGateway = (name: string, enabled: boolean) =>
    cluster.k([
      'patch',
      'md',
      name,
      '-n',
      NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { gateway: { enabled } } }),
    ]);
  /** the deployment once GatewayReady is True */
  const routed = (name: string) =>
    waitFor(
      `${name} GatewayReady=True`,
      async () => {
        const m = await md(name);
        return gatewayReady(m)?.status === 'True' ? m : undefined;
      },
      { timeoutMs: 60_000, detail: () => md(name) },
    );
  const chat = (url: string | undefined, model: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
    });
  /** the first 200 to a chat request through the gateway (the route's acceptance reaches the data plane at once, the pods may lag) */
  const answered = (url: string | undefined, model: string) =>
    waitFor(`a 200 from ${model} through the gateway`, async () => {
      const res = await chat(url, model);
      return res.status === 200 ? res : undefined;
    });

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), controllers: true });
    for (const f of ['00-namespace.yaml', '40-modeldeployment-cpu.yaml', '43-modeldeployment-llmd.yaml'])
      await cluster.k(['apply', '-f', '-'], example(f));
  });
  after(async () => cluster?.stop());

  it('a Running deployment is routed through the labelled Gateway: HTTPRoute, status.gateway, GatewayReady=True', async () => {
    const ready = await routed('gemma-cpu');
    assert.equal(ready.status?.gateway?.modelName, MODEL);
    assert.equal(ready.status?.gateway?.gatewayNamespace, 'gateways');
    assert.ok(ready.status?.gateway?.endpoint, 'the Gateway address');
    assert.equal(ready.status?.endpoint?.gatewayUrl, `http://${ready.status?.gateway?.endpoint}`);
    const route = JSON.parse(await cluster.k(['get', 'httproute', 'gemma-cpu', '-n', NS, '-o', 'json'])) as {
      spec: { parentRefs: Array<{ name: string; namespace: string }>; rules: Array<{ backendRefs: unknown[] }> };
    };
    assert.deepEqual(
      route.spec.parentRefs.map((p) => `${p.namespace}/${p.name}`),
      ['gateways/inference-gateway'],
    );
  });

  it('an OpenAI chat request to the Gateway address is answered by the model pod; another model is a 404', async () => {
    const m = await md('gemma-cpu');
    const url = m.status?.endpoint?.gatewayUrl;
    assert.ok(url);
    const r = await answered(url, MODEL);
    const body = (await r.json()) as { model: string; choices: Array<{ message: { role: string; content: string } }> };
    assert.equal(body.model, MODEL, 'the gemma-cpu pod answered');
    assert.equal(body.choices[0]!.message.role, 'assistant');
    const other = await chat(url, 'someone/else');
    assert.equal(other.status, 404);
    assert.match(
      ((await other.json()) as { error: { message: string } }).error.message,
      /no HTTPRoute .*\(model "someone\/else"\)/,
    );
  });

  it("the quickstart's qwen-llmd is routed to llm-d's InferencePool and answers through the Gateway", async () => {
    const ready = await routed('qwen-llmd');
    const pool = JSON.parse(await cluster.k(['get', 'inferencepool', 'qwen-llmd-pool', '-n', NS, '-o', 'json'])) as {
      spec: { selector: { matchLabels: Record<string, string> }; targetPorts: Array<{ number: number }> };
    };
    assert.deepEqual(pool.spec.selector.matchLabels, { 'kubeairunway.ai/model-deployment': 'qwen-llmd' });
    assert.deepEqual(pool.spec.targetPorts, [{ number: 8000 }]);
    const route = JSON.parse(await cluster.k(['get', 'httproute', 'qwen-llmd', '-n', NS, '-o', 'json'])) as {
      spec: { rules: Array<{ backendRefs: Array<{ kind: string; name: string }> }> };
    };
    assert.deepEqual(
      route.spec.rules[0]!.backendRefs.map((b) => `${b.kind}/${b.name}`),
      ['InferencePool/qwen-llmd-pool'],
    );
    const res = await answered(ready.status?.endpoint?.gatewayUrl, QWEN);
    assert.equal(((await res.json()) as { model: string }).model, QWEN);
  });

  it('a route deleted by hand is recreated (drift is reverted, docs/kubeairunway.md)', async () => {
    const before = JSON.parse(await cluster.k(['get', 'httproute', 'gemma-cpu', '-n', NS, '-o', 'json'])) as {
      metadata: { uid: string };
    };
    await cluster.k(['delete', 'httproute', 'gemma-cpu', '-n', NS]);
    await waitFor('a new gemma-cpu HTTPRoute', async () => {
      const r = await cluster.kubectl(['get', 'httproute', 'gemma-cpu', '-n', NS, '-o', 'jsonpath={.metadata.uid}']);
      return r.code === 0 && r.stdout !== '' && r.stdout !== before.metadata.uid;
    });
    await answered((await routed('gemma-cpu')).status?.endpoint?.gatewayUrl, MODEL);
  });

  it('spec.gateway.enabled: false removes the route and sets GatewayReady=False GatewayDisabled', async () => {
    await setGateway('gemma-cpu', false);
    await waitFor('the HTTPRoute gone', async () => {
      const r = await cluster.kubectl(['get', 'httproute', 'gemma-cpu', '-n', NS]);
      return r.code !== 0 && /NotFound/.test(r.stderr);
    });
    const m = await waitFor('GatewayDisabled', async () => {
      const m = await md('gemma-cpu');
      return gatewayReady(m)?.reason === 'GatewayDisabled' ? m : undefined;
    });
    assert.equal(gatewayReady(m)?.status, 'False');
    assert.match(gatewayReady(m)?.message ?? '', /spec\.gateway\.enabled is false/);
    assert.equal(m.status?.gateway, undefined);
    assert.equal(m.status?.endpoint?.gatewayUrl, undefined);
  });

  it('a foreign HTTPRoute of the same name is left alone and reported (HTTPRouteConflict)', async () => {
    await cluster.k(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'gemma-cpu', namespace: NS },
        spec: { parentRefs: [{ name: 'kserve-gateway', namespace: 'kgateway-system' }] },
      }),
    );
    await setGateway('gemma-cpu', true);
    const m = await waitFor('HTTPRouteConflict', async () => {
      const m = await md('gemma-cpu');
      return gatewayReady(m)?.reason === 'HTTPRouteConflict' ? m : undefined;
    });
    assert.match(gatewayReady(m)?.message ?? '', /HTTPRoute quickstart\/gemma-cpu exists and is not managed by/);
    const route = JSON.parse(await cluster.k(['get', 'httproute', 'gemma-cpu', '-n', NS, '-o', 'json'])) as {
      spec: { parentRefs: Array<{ name: string }> };
    };
    assert.equal(route.spec.parentRefs[0]!.name, 'kserve-gateway', 'the foreign route is untouched');
  });
});

// The simulated Llama Stack server: health, providers and models from the mounted config (as the real
// server shapes them), ${env.X} substitution, and chat completions forwarded to the provider's base_url
// with the model's provider-side id, through the cluster-DNS resolver.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  clusterUrlResolver,
  type SimLlamaStackServer,
  startSimLlamaStackServer,
  substituteEnv,
} from '@modelplane/sim/llamastack';
import { embeddedBaseConfig, generateConfig } from '../../src/controllers/llamastack/config/index.ts';

describe('simulated Llama Stack server', () => {
  let vllm: Server;
  let sim: SimLlamaStackServer;
  const seen: Array<{ auth?: string; body: any }> = [];
  before(async () => {
    vllm = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: JSON.parse(body) });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: `echo ${req.url}` } }],
          }),
        );
      });
    });
    await new Promise<void>((r) => vllm.listen(0, '127.0.0.1', r));
    const endpoints = new Map([
      ['quickstart/gemma-cpu:80', `http://127.0.0.1:${(vllm.address() as AddressInfo).port}`],
    ]);
    const registry = {
      register: () => undefined,
      resolve: (ns: string, name: string, port = 443) => endpoints.get(`${ns}/${name}:${port}`),
    };
    const g = generateConfig({
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: {
          inference: [
            {
              id: 'gemma',
              provider: 'vllm',
              modelDeploymentRef: { name: 'gemma-cpu' },
              apiKey: { name: 's', key: 'k' },
            },
          ],
        },
        resources: { models: [{ name: 'gemma-3' }] },
        disabled: ['vector_io'],
      },
      base: embeddedBaseConfig('remote-vllm')!,
      distroName: 'remote-vllm',
      endpoints: { gemma: 'http://gemma-cpu.quickstart.svc.cluster.local:80/v1' },
    });
    sim = await startSimLlamaStackServer({
      config: g.yaml,
      env: { LLSD_GEMMA_API_KEY: 'sekret' },
      resolveUrl: clusterUrlResolver(registry),
    });
  });
  after(async () => {
    await sim?.close();
    vllm?.close();
  });

  it('answers /v1/health and lists the configured providers and models', async () => {
    assert.deepEqual(await (await fetch(`${sim.url}/v1/health`)).json(), { status: 'OK' });
    const providers = ((await (await fetch(`${sim.url}/v1/providers`)).json()) as any).data;
    assert.deepEqual(providers.map((p: any) => `${p.api}/${p.provider_id}`).sort(), [
      'inference/gemma',
      'safety/llama-guard',
      'tool_runtime/brave-search',
    ]);
    assert.equal(
      providers.find((p: any) => p.provider_id === 'gemma').config.api_token,
      '********',
      'secrets are masked',
    );
    const models = ((await (await fetch(`${sim.url}/v1/models`)).json()) as any).data;
    assert.deepEqual(
      models.map((m: any) => m.id),
      ['gemma/gemma-3'],
    );
  });

  it('forwards a chat completion to the provider base_url with its key, by the model id the provider knows', async () => {
    const r = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemma/gemma-3', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as any).choices[0].message.content, 'echo /v1/chat/completions');
    assert.equal(seen.at(-1)!.auth, 'Bearer sekret');
    assert.equal(seen.at(-1)!.body.model, 'gemma-3');
  });

  it('says which model is unknown and which endpoint is unreachable', async () => {
    const unknown = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'nope', messages: [] }),
    });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as any).detail, /Model 'nope' not found/);
    assert.equal(
      await clusterUrlResolver({ register: () => undefined, resolve: () => undefined })('http://x.y.svc:80/v1'),
      undefined,
    );
    assert.equal(
      await clusterUrlResolver(
        { register: () => undefined, resolve: () => undefined },
        async () => 'http://127.244.0.5:8000',
      )('http://x.y.svc.cluster.local:80/v1'),
      'http://127.244.0.5:8000/v1',
    );
  });

  it('substitutes environment references the way Llama Stack does', () => {
    assert.equal(
      substituteEnv(['A:=d', 'B:=d', 'A:+on', 'B:+on', 'A'].map((r) => `$${'{'}env.${r}}`).join('|'), { A: 'a' }),
      'a|d|on||a',
    );
  });
});

// The dashboard's chat endpoint decides where a message goes and what it carries: the Gateway URL and the
// model come from the ModelDeployment or AIMService the key names, only the message text from the body.
// A stand-in Gateway on loopback records every request it gets, so the tests see exactly what was sent.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { serveGuarded } from '@modelplane/runtime/serve';
import { CHAT_MAX_MESSAGE, chat, type TryView } from '../../../src/cli/dashboard/try.ts';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

const owned = { ownerReferences: [{ uid: 'svc-uid', kind: 'AIMService', name: 'qwen-chat', apiVersion: 'x' }] };

function world(gatewayHost: string): KubeObject[] {
  return [
    {
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMService',
      metadata: { name: 'qwen-chat', namespace: 'q', uid: 'svc-uid' },
      status: {
        routing: { path: '/q/chatbot/qwen-chat' },
        resolvedModel: { kind: 'AIMModel', name: 'qwen3-8b', namespace: 'q' },
      },
    },
    {
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMModel',
      metadata: { name: 'qwen3-8b', namespace: 'q' },
      status: { imageMetadata: { model: { canonicalName: 'Qwen/Qwen3-8B' } } },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'qwen-chat', namespace: 'q', ...owned },
      spec: { parentRefs: [{ name: 'inference-gateway', namespace: 'gateways' }] },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'inference-gateway', namespace: 'gateways' },
      status: { addresses: [{ type: 'IPAddress', value: gatewayHost }] },
    },
    {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'm', namespace: 'q' },
      spec: { model: { id: 'org/m' } },
      status: { endpoint: { gatewayUrl: `http://${gatewayHost}` }, gateway: { modelName: 'served-m' } },
    },
  ] as unknown as KubeObject[];
}

const groupOf = (o: KubeObject) => (o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '');

function viewOf(objects: KubeObject[]): TryView {
  return {
    ofKind: (kind, group) => objects.filter((o) => o.kind === kind && (group === undefined || groupOf(o) === group)),
    find: (key) =>
      objects.find((o) => `${groupOf(o)}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}` === key),
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the chat endpoint', () => {
  const received: Received[] = [];
  let answer = { status: 200, body: '' };
  let gateway: Server;
  let dashboard: Server;
  let dashboardUrl = '';

  before(async () => {
    gateway = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown> });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    const view = viewOf(world(await listen(gateway)));
    // behind the same error boundary as the dashboard server (a body that is not JSON is its 400)
    dashboard = serveGuarded(createServer(), { name: 'chat test', maxBodyBytes: 64 * 1024 }, (_req, res, ctx) =>
      chat(res, view, ctx.url.searchParams.get('key') ?? '', ctx.body),
    );
    dashboardUrl = `http://${await listen(dashboard)}`;
  });
  after(async () => {
    await new Promise((r) => gateway?.close(r));
    await new Promise((r) => dashboard?.close(r));
  });

  const send = async (key: string, body: unknown) => {
    const r = await fetch(`${dashboardUrl}/api/chat?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  const reply = (content: string) =>
    JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], model: 'Qwen/Qwen3-8B' });

  it("an AIMService: through its route's path, with its resolved model; the body's url and model are ignored", async () => {
    received.length = 0;
    answer = { status: 200, body: reply('hello from AIM') };
    const r = await send('aim.eai.amd.com/AIMService/q/qwen-chat', {
      message: 'hi',
      model: 'attacker/model',
      url: 'http://169.254.169.254/latest',
      max_tokens: 100_000,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.answer, 'hello from AIM');
    assert.equal(r.body.model, 'Qwen/Qwen3-8B');
    assert.ok(typeof r.body.latencyMs === 'number' && r.body.latencyMs >= 0, `latency ${r.body.latencyMs}`);
    assert.deepEqual(received, [
      {
        path: '/q/chatbot/qwen-chat/v1/chat/completions',
        body: { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }], max_tokens: 64 },
      },
    ]);
  });

  it('a ModelDeployment: its gateway URL and model name, the same endpoint and component', async () => {
    received.length = 0;
    answer = { status: 200, body: reply('hello from md') };
    const r = await send('kubeairunway.ai/ModelDeployment/q/m', { message: 'hey' });
    assert.equal(r.body.answer, 'hello from md');
    assert.deepEqual(
      received.map((x) => [x.path, x.body.model]),
      [['/v1/chat/completions', 'served-m']],
    );
  });

  it('refuses what it cannot send, and sends nothing for it', async () => {
    received.length = 0;
    const cases: Array<[string, unknown, number]> = [
      ['aim.eai.amd.com/AIMService/q/absent', { message: 'hi' }, 404],
      ['aim.eai.amd.com/AIMModel/q/qwen3-8b', { message: 'hi' }, 404],
      ['gateway.networking.k8s.io/Gateway/gateways/inference-gateway', { message: 'hi' }, 404],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', { message: '' }, 422],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', { message: '   ' }, 422],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', { message: 42 }, 422],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', { message: 'x'.repeat(CHAT_MAX_MESSAGE + 1) }, 422],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', 'not json', 400],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', '', 400],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', [], 422],
      ['aim.eai.amd.com/AIMService/q/qwen-chat', null, 422],
    ];
    for (const [key, body, status] of cases) {
      const r = await send(key, body);
      assert.equal(r.status, status, `${key} ${JSON.stringify(body)?.slice(0, 40)}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.error, 'string');
    }
    assert.deepEqual(received, [], 'nothing reached the Gateway');
  });

  it("the Gateway's error or a reply that is not a completion: 502 naming the Gateway and its status", async () => {
    answer = { status: 503, body: '{"error":{"message":"no ready endpoints"}}' };
    const failed = await send('aim.eai.amd.com/AIMService/q/qwen-chat', { message: 'hi' });
    assert.equal(failed.status, 502);
    assert.match(String(failed.body.error), /\/q\/chatbot\/qwen-chat answered 503: .*no ready endpoints/);
    answer = { status: 200, body: '<html>' };
    const odd = await send('aim.eai.amd.com/AIMService/q/qwen-chat', { message: 'hi' });
    assert.equal(odd.status, 502);
  });
});

// Llama Stack as a user meets it on `modelplane dev`: the `llamastack` controller set and the `webhooks`
// set run as their own processes under their generated RBAC (`modelplane run --controllers …`), and
// everything goes through the real kubectl: create → Ready, the object read as v1alpha1 through the
// conversion webhook, a bad Secret reference refused at admission, and a chat completion sent to the
// simulated Llama Stack server and forwarded to a vLLM-compatible endpoint.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { llamaStackControllerSet } from '../../src/controllers/llamastack/index.ts';
import { WEBHOOK_SERVICE, webhooksSet } from '../../src/controllers/webhooks.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { DEPLOY_NAMESPACE, type OperatorProcess, startOperatorProcess } from '../helpers/operator-process.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'llama';

const chatDistribution = `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: { name: chat, namespace: ${NS} }
spec:
  distribution: { name: remote-vllm }
  providers:
    inference: { id: fake, provider: vllm, endpoint: "http://fake-vllm.${NS}.svc.cluster.local:8000/v1", apiKey: { name: vllm-creds, key: token } }
  resources:
    models: [{ name: tiny-chat }]
`;

describe('Llama Stack on modelplane dev (controller and webhooks as processes, kubectl)', { timeout: 240_000 }, () => {
  let cluster: DevTestCluster;
  let controller: OperatorProcess;
  let hooks: OperatorProcess;
  let vllm: Server;
  const received: any[] = [];

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), namespaces: [NS] });
    hooks = await startOperatorProcess(cluster, cluster.admin, webhooksSet(), {
      extraArgs: cluster.webhookListenArgs(),
    });
    const url = /"msg":"webhook server listening".*?"url":"(https:\/\/[^"]+)"/.exec(hooks.output())?.[1];
    assert.ok(url, hooks.output());
    await cluster.exposeWebhook(DEPLOY_NAMESPACE, WEBHOOK_SERVICE, url);
    controller = await startOperatorProcess(cluster, cluster.admin, llamaStackControllerSet());
    vllm = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body || '{}') });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            object: 'chat.completion',
            model: 'tiny-chat',
            choices: [{ index: 0, message: { role: 'assistant', content: 'hello from vLLM' }, finish_reason: 'stop' }],
          }),
        );
      });
    });
    await new Promise<void>((r) => vllm.listen(0, '127.0.0.1', r));
    cluster.dev.serviceEndpoints.register(
      NS,
      'fake-vllm',
      8000,
      `http://127.0.0.1:${(vllm.address() as AddressInfo).port}`,
    );
    // ready once the validating webhook refuses a reference to a missing Secret
    await waitFor(
      'the validating webhook',
      async () => {
        const r = await cluster.kubectl(
          ['create', '-f', '-'],
          chatDistribution.replace('name: chat,', 'name: probe,').replace('vllm-creds', 'missing'),
        );
        if (r.code === 0) await cluster.kubectl(['delete', 'llsd', 'probe', '-n', NS]);
        return r.code !== 0 && r.stderr.includes('vllamastackdistribution.llamastack.io');
      },
      { timeoutMs: 60_000, detail: () => hooks.output().slice(-3000) },
    );
  });
  after(async () => {
    await controller?.stop();
    await hooks?.stop();
    vllm?.close();
    await cluster?.stop();
  });

  it('refuses a reference to a missing Secret at admission, naming the field', async () => {
    const r = await cluster.kubectl(['create', '-f', '-'], chatDistribution.replace('vllm-creds', 'missing'));
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      `Error from server (Forbidden): error when creating "STDIN": admission webhook "vllamastackdistribution.llamastack.io" denied the request: Secret "missing" not found in namespace "${NS}". Referenced by: spec.providers.inference[0].apiKey`,
    );
  });

  it('create → Ready, then a chat completion through the simulated server reaches vLLM', async () => {
    await cluster.k(['create', 'secret', 'generic', 'vllm-creds', '-n', NS, '--from-literal=token=s3cret']);
    await cluster.k(['create', '-f', '-'], chatDistribution);
    await cluster.k(['wait', 'llsd/chat', '-n', NS, '--for=jsonpath={.status.phase}=Ready', '--timeout=90s']);
    const stored = JSON.parse(await cluster.k(['get', 'llsd', 'chat', '-n', NS, '-o', 'json']));
    assert.equal(stored.spec.providers.inference.length, 1, 'the single object was stored as a list');
    const server = await waitFor('the simulated server registered for chat-service', () =>
      cluster.dev.serviceEndpoints.resolve(NS, 'chat-service', 8321),
    );
    // pod logs come from the simulated kubelet: asked directly by the embedded API server, over HTTPS by a real one
    assert.match(await cluster.k(['logs', '-n', NS, 'deploy/chat']), new RegExp(`Uvicorn running on ${server}`));
    const models = (await (await fetch(`${server}/v1/models`)).json()) as any;
    assert.deepEqual(
      models.data.map((m: any) => m.id),
      ['fake/tiny-chat'],
    );
    const r = await fetch(`${server}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/tiny-chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(((await r.json()) as any).choices[0].message.content, 'hello from vLLM');
    assert.equal(received.at(-1).auth, 'Bearer s3cret', 'the key came from the Secret through the pod environment');
    assert.equal(received.at(-1).body.model, 'tiny-chat');
  });

  it('reads the stored v1alpha2 object as v1alpha1 through the conversion webhook and back', async () => {
    const v1 = JSON.parse(
      await cluster.k(['get', 'llamastackdistributions.v1alpha1.llamastack.io', 'chat', '-n', NS, '-o', 'json']),
    );
    assert.equal(v1.apiVersion, 'llamastack.io/v1alpha1');
    assert.deepEqual(v1.spec.server.distribution, { name: 'remote-vllm' });
    assert.ok(v1.metadata.annotations['llamastack.io/v1alpha2-fields']);
    assert.equal(v1.status.phase, 'Ready');
    await cluster.k(['replace', '-f', '-'], JSON.stringify(v1));
    const back = JSON.parse(await cluster.k(['get', 'llsd', 'chat', '-n', NS, '-o', 'json']));
    assert.deepEqual(back.spec.providers, {
      inference: [
        {
          id: 'fake',
          provider: 'vllm',
          endpoint: `http://fake-vllm.${NS}.svc.cluster.local:8000/v1`,
          apiKey: { name: 'vllm-creds', key: 'token' },
        },
      ],
    });
  });

  it('a spec change through kubectl gives a new ConfigMap and keeps the old one', async () => {
    const before = (
      await cluster.k([
        'get',
        'cm',
        '-n',
        NS,
        '-l',
        'llamastack.io/generated-config=true,app.kubernetes.io/instance=chat',
        '-o',
        'name',
      ])
    )
      .trim()
      .split('\n');
    await cluster.k(['patch', 'llsd', 'chat', '-n', NS, '--type=merge', '-p', '{"spec":{"networking":{"port":8400}}}']);
    await waitFor('a second generated ConfigMap', async () => {
      const now = (
        await cluster.k([
          'get',
          'cm',
          '-n',
          NS,
          '-l',
          'llamastack.io/generated-config=true,app.kubernetes.io/instance=chat',
          '-o',
          'name',
        ])
      )
        .trim()
        .split('\n');
      return now.length === 2 && before.every((b) => now.includes(b)) ? true : undefined;
    });
    await cluster.k(['wait', 'llsd/chat', '-n', NS, '--for=jsonpath={.status.phase}=Ready', '--timeout=90s']);
  });
});

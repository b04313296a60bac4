// "A referenced ModelDeployment counts only when it answers /v1/models with the model" (docs/llamastack.md,
// "Ready means chat works"), over HTTP: what listModels makes of good, odd and missing answers, and the
// controller on the dev cluster keeping a LlamaStackDistribution from Ready while the ModelDeployment's
// endpoint does not list the model, naming the reference, the URL and the model, then Ready once it does.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { LlamaStackDistributions } from '../../../src/apis/llamastack/index.ts';
import { registerLlamaStackController } from '../../../src/controllers/llamastack/index.ts';
import { listModels } from '../../../src/controllers/llamastack/model-check.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type Json = Record<string, any>;
const NS = 'llama-models';
const log = new Logger({}, parseLogLevel(process.env.LLS_TEST_LOG, 'silent'));

/** a stand-in for a ModelDeployment's inference server: /v1/models answers what the test sets */
let answer: { code: number; body: string } = { code: 200, body: '{"data":[]}' };
let inference: Server;
let inferenceBase: string;
const models = (...ids: string[]) => ({
  code: 200,
  body: JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) }),
});

before(async () => {
  inference = createServer((req, res) => {
    const a = req.url === '/v1/models' ? answer : { code: 404, body: '{}' };
    res.writeHead(a.code, { 'content-type': 'application/json' }).end(a.body);
  });
  await new Promise<void>((r) => inference.listen(0, '127.0.0.1', r));
  inferenceBase = `http://127.0.0.1:${(inference.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => inference.close(() => r())));

describe('listModels', () => {
  it('the ids of data[], skipping entries without a string id', async () => {
    answer = { code: 200, body: JSON.stringify({ data: [{ id: 'a' }, { id: 7 }, null, 'x', { id: 'b' }] }) };
    assert.deepEqual(await listModels(`${inferenceBase}/v1`), { reachable: true, models: ['a', 'b'] });
  });

  for (const [what, a] of [
    ['an HTTP error', { code: 503, body: '{}' }],
    ['a body that is not JSON', { code: 200, body: '<html>' }],
    ['an answer without a data list', { code: 200, body: '{"models":["a"]}' }],
  ] as const)
    it(`${what} is unreachable with the cause, never thrown`, async () => {
      answer = a;
      const r = await listModels(`${inferenceBase}/v1`);
      assert.equal(r.reachable, false);
      assert.match((r as { message: string }).message, /\/models/);
    });

  it('no endpoint behind the Service, and a closed port', async () => {
    assert.deepEqual(await listModels(undefined), {
      reachable: false,
      message: 'no ready endpoint behind its Service',
    });
    assert.equal((await listModels('http://127.0.0.1:1/v1')).reachable, false);
  });
});

describe('LlamaStackDistribution: a referenced ModelDeployment counts once it lists the model', {
  timeout: 180_000,
}, () => {
  let cluster: OperatorTestCluster<Controller>;
  before(async () => {
    let resolve: ((ns: string, s: string, p: number) => string | undefined) | undefined;
    cluster = await startOperatorTestCluster({
      name: 'llamastack-models',
      log,
      namespaces: [NS, 'modelplane-system'],
      register: (mgr) =>
        registerLlamaStackController(mgr, {
          operatorNamespace: 'modelplane-system',
          recheckMs: 300,
          // the ModelDeployment's Service is the stand-in above; the server's own Service the simulated one
          serviceUrl: async (ns, s, p) => (s === 'gemma-svc' ? inferenceBase : resolve?.(ns, s, p)),
        }),
    });
    resolve = (ns, s, p) => cluster.dev.serviceEndpoints.resolve(ns, s, p);
  });
  after(() => cluster?.stop());

  it('not Ready naming the reference, the URL and the model while it is not listed; Ready once it is', async () => {
    answer = models('some/other-model');
    await cluster.admin.apply({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'gemma', namespace: NS },
      spec: { model: { id: 'google/gemma' } },
    } as KubeObject);
    await cluster.admin.applyStatus(
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        metadata: { name: 'gemma', namespace: NS },
        status: { endpoint: { service: 'gemma-svc', port: 8000 } },
      } as KubeObject,
      { fieldManager: 'test-provider' },
    );
    await cluster.admin.apply({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'chat', namespace: NS },
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: { inference: [{ id: 'gemma', provider: 'vllm', modelDeploymentRef: { name: 'gemma' } }] },
        resources: { models: [{ name: 'google/gemma' }] },
      },
    } as any);
    const get = async () => (await cluster.admin.getOrUndefined(LlamaStackDistributions, 'chat', NS)) as Json;
    const cond = (o: Json | undefined, type: string) => o?.status?.conditions?.find((c: Json) => c.type === type);
    const missing = await waitFor(
      'not Ready: the model is not listed',
      async () => {
        const o = await get();
        return cond(o, 'ModelsAvailable')?.status === 'False' && cond(o, 'Available')?.status === 'True'
          ? o
          : undefined;
      },
      { timeoutMs: 90_000, detail: async () => (await get())?.status },
    );
    assert.equal(missing.status.phase, 'Failed');
    assert.equal(cond(missing, 'Ready')?.status, 'False');
    assert.equal(cond(missing, 'ModelsAvailable').reason, 'ModelNotListed');
    assert.equal(
      cond(missing, 'ModelsAvailable').message,
      `spec.providers.inference[0].modelDeploymentRef: ModelDeployment gemma at http://gemma-svc.${NS}.svc.cluster.local:8000/v1 does not list model "google/gemma" in /v1/models (it lists some/other-model): fix spec.resources.models or the ModelDeployment's model`,
    );
    // the config was still generated and rolled out: only Ready waits for the model
    assert.equal(cond(missing, 'DeploymentUpdated')?.status, 'True');

    answer = models('some/other-model', 'google/gemma');
    const ready = await waitFor(
      'Ready once the model is listed',
      async () => {
        const o = await get();
        return o?.status?.phase === 'Ready' ? o : undefined;
      },
      { timeoutMs: 60_000, detail: async () => (await get())?.status },
    );
    assert.equal(cond(ready, 'ModelsAvailable')?.status, 'True');
    assert.match(cond(ready, 'ModelsAvailable').message, /ModelDeployment gemma \(google\/gemma\)/);
  });
});

// Who is routed through the dev Gateway, and when (docs/kubeairunway.md, "Model names on a Gateway" and
// "Gateway"): a second deployment claiming a model name gets ModelNameConflict and no route, and takes the
// name over when the first goes; a rejected edit stored while the webhook is down holds the deployment at
// Pending but never takes its serving model off the Gateway; when the labelled Gateway goes, routes are
// withdrawn with a condition instead of moving to the cluster's other (KServe's) Gateway.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../src/controllers/sets.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'routing';
const QWEN = 'Qwen/Qwen2.5-0.5B-Instruct';

interface Md {
  status?: {
    phase?: string;
    gateway?: { modelName?: string; gatewayName?: string };
    endpoint?: { gatewayUrl?: string };
    conditions?: Array<{
      type: string;
      status: string;
      reason?: string;
      message?: string;
      observedGeneration?: number;
    }>;
  };
  metadata: { generation?: number };
}

const llmd = (name: string, opts: { servedName?: string; weight?: number } = {}) =>
  JSON.stringify({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: NS },
    spec: {
      model: { id: QWEN, ...(opts.servedName ? { servedName: opts.servedName } : {}) },
      engine: { type: 'vllm' },
      provider: { name: 'llmd' },
      resources: { gpu: { count: 1 }, memory: '16Gi' },
      gateway: { enabled: true, ...(opts.weight ? { weight: opts.weight } : {}) },
    },
  });

describe('KubeAIRunway routing on modelplane dev (webhook down)', { timeout: 240_000 }, () => {
  let cluster: DevTestCluster;
  const md = async (name: string) => JSON.parse(await cluster.k(['get', 'md', name, '-n', NS, '-o', 'json'])) as Md;
  const gatewayReady = (m: Md) => m.status?.conditions?.find((c) => c.type === 'GatewayReady');
  const reason = (name: string, want: string) =>
    waitFor(
      `${name} GatewayReady reason ${want}`,
      async () => {
        const m = await md(name);
        return gatewayReady(m)?.reason === want ? m : undefined;
      },
      { timeoutMs: 60_000, detail: () => md(name) },
    );
  const setGpus = (count: number) =>
    cluster.k([
      'patch',
      'md',
      'qwen-second',
      '-n',
      NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { resources: { gpu: { count } } } }),
    ]);
  const routeExists = async (name: string) => (await cluster.kubectl(['get', 'httproute', name, '-n', NS])).code === 0;
  const chat = (url: string | undefined) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: QWEN, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
    });

  before(async () => {
    // no webhooks set: admission is down (failurePolicy Ignore), as in the probe of a rejected edit
    cluster = await startDevTestCluster({
      log: new Logger({ level: 'error' }),
      controllers: true,
      sets: [...CONTROLLER_SETS.filter((s) => s.name !== 'webhooks'), ...PROVIDER_SETS],
      namespaces: [NS],
    });
  });
  after(async () => cluster?.stop());

  it('the first claimant keeps a model name; a later one gets ModelNameConflict naming it, and takes over when it goes', async () => {
    await cluster.k(['apply', '-f', '-'], llmd('qwen-first'));
    const first = await reason('qwen-first', 'HTTPRouteAccepted');
    assert.equal(
      gatewayReady(first)?.observedGeneration,
      first.metadata.generation,
      'GatewayReady has observedGeneration',
    );
    await cluster.k(['apply', '-f', '-'], llmd('qwen-second'));
    const second = await reason('qwen-second', 'ModelNameConflict');
    assert.equal(gatewayReady(second)?.status, 'False');
    assert.match(
      gatewayReady(second)?.message ?? '',
      /model name "Qwen\/Qwen2\.5-0\.5B-Instruct" on Gateway gateways\/inference-gateway is already served by ModelDeployment routing\/qwen-first/,
    );
    assert.equal(await routeExists('qwen-second'), false, 'no second route for the name');
    assert.equal(gatewayReady(await md('qwen-first'))?.reason, 'HTTPRouteAccepted', 'the owner is untouched');
    await cluster.k(['delete', 'md', 'qwen-first', '-n', NS]);
    await reason('qwen-second', 'HTTPRouteAccepted');
    assert.equal(await routeExists('qwen-second'), true);
  });

  it('an invalid edit stored while the webhook is down holds the deployment at Pending but keeps it on the Gateway', async () => {
    const url = (await md('qwen-second')).status?.endpoint?.gatewayUrl;
    await waitFor('a 200 through the gateway', async () => (await chat(url)).status === 200);
    // vLLM without a GPU: refused by validation, so the provider keeps the running Deployment as it was
    await setGpus(0);
    await waitFor('phase Pending', async () => (await md('qwen-second')).status?.phase === 'Pending');
    const m = await md('qwen-second');
    assert.equal(gatewayReady(m)?.status, 'True', JSON.stringify(gatewayReady(m)));
    assert.equal(await routeExists('qwen-second'), true);
    const res = await chat(url);
    assert.equal(res.status, 200, 'the pods still serve, and the Gateway still reaches them');
    await setGpus(1);
  });

  it('deployments that both set spec.gateway.weight share a name: one route with a weighted backend each, both answer', async () => {
    await cluster.k(['apply', '-f', '-'], llmd('shared-a', { servedName: 'shared', weight: 3 }));
    const owner = await reason('shared-a', 'HTTPRouteAccepted');
    await cluster.k(['apply', '-f', '-'], llmd('shared-b', { servedName: 'shared', weight: 1 }));
    const sharer = await reason('shared-b', 'ModelNameShared');
    assert.equal(gatewayReady(sharer)?.status, 'True');
    assert.equal(await routeExists('shared-b'), false, 'one route for the name');
    const route = await waitFor('both backends on the owner route', async () => {
      const r = JSON.parse(await cluster.k(['get', 'httproute', 'shared-a', '-n', NS, '-o', 'json'])) as {
        spec: { rules: Array<{ backendRefs: Array<{ kind: string; name: string; weight?: number }> }> };
      };
      return r.spec.rules[0]!.backendRefs.length === 2 && r;
    });
    assert.deepEqual(
      route.spec.rules[0]!.backendRefs.map((b) => `${b.kind}/${b.name}:${b.weight}`),
      ['InferencePool/shared-a-pool:3', 'InferencePool/shared-b-pool:1'],
    );
    const url = owner.status?.endpoint?.gatewayUrl;
    const ask = () =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'shared', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }),
      });
    await waitFor('a 200 for "shared"', async () => (await ask()).status === 200);
    for (let i = 0; i < 12; i++) {
      const res = await ask();
      assert.equal(res.status, 200, await res.text());
    }
  });

  it("when the labelled Gateway goes, routes are withdrawn with GatewayNotFound, never moved to KServe's Gateway", async () => {
    await reason('qwen-second', 'HTTPRouteAccepted');
    await cluster.k(['delete', 'gateway', 'inference-gateway', '-n', 'gateways']);
    const m = await reason('qwen-second', 'GatewayNotFound');
    assert.equal(gatewayReady(m)?.status, 'False');
    assert.match(gatewayReady(m)?.message ?? '', /gateways\/inference-gateway, which routed it, is gone/);
    await waitFor('the route withdrawn', async () => !(await routeExists('qwen-second')));
    // and it stays withdrawn (not re-created towards kgateway-system/kserve-gateway on a later reconcile)
    await cluster.k(['annotate', 'md', 'qwen-second', '-n', NS, 'poke=1']);
    await reason('qwen-second', 'GatewayNotFound');
    assert.equal(await routeExists('qwen-second'), false);
  });
});

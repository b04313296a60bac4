// Who is routed through the dev Gateway, and when (docs/kubeairunway.md, "Model names on a Gateway" and
// "Gateway"): a second deployment claiming a model name gets ModelNameConflict and no route, and takes the
// name over when the first goes; a rejected edit stored while the webhook is down holds the deployment at
// Pending but never takes its serving model off the Gateway; when the labelled Gateway goes, routes are
// withdrawn with a condition instead of moving to the cluster's other (KServe's) Gateway, and come back
// when it does. Upstream status noise never rewrites a route; no ready pod withdraws it, a ready one brings
// it back. Weighted sharers get the traffic their weights say (measured by the pod each answer names).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { startWebhooksDownCluster } from './helpers/webhooks-down-cluster.ts';

const NS = 'routing';
const QWEN = 'Qwen/Qwen2.5-0.5B-Instruct';
const WRITES = new Set(['create', 'patch', 'update', 'delete']);

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
  const patchSpec = (spec: Record<string, unknown>) =>
    cluster.k(['patch', 'md', 'qwen-second', '-n', NS, '--type=merge', '-p', JSON.stringify({ spec })]);
  const deploymentReplicas = async (name: string) =>
    Number(await cluster.k(['get', 'deployment', name, '-n', NS, '-o', 'jsonpath={.spec.replicas}']));
  /** the operator's writes to the HTTPRoute `name` (its status is the Gateway's, not counted) */
  const routeWrites = (name: string) =>
    cluster
      .auditEntries()
      .filter((e) => e.resource === 'httproutes' && WRITES.has(e.verb) && e.namespace === NS && e.name === name);
  const routeExists = async (name: string) => (await cluster.kubectl(['get', 'httproute', name, '-n', NS])).code === 0;
  const chat = (url: string | undefined) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: QWEN, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
    });

  before(async () => {
    cluster = await startWebhooksDownCluster(NS);
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
    const writes = routeWrites('qwen-second').length;
    // above the replica ceiling, and vLLM without a GPU: refused by validation, so the provider keeps the
    // running Deployment as it was
    for (const spec of [{ scaling: { replicas: 1000 } }, { resources: { gpu: { count: 0 } } }]) {
      await patchSpec(spec);
      await waitFor('phase Pending', async () => (await md('qwen-second')).status?.phase === 'Pending');
      const m = await md('qwen-second');
      assert.equal(gatewayReady(m)?.status, 'True', JSON.stringify(gatewayReady(m)));
      assert.equal(await routeExists('qwen-second'), true);
      const res = await chat(url);
      assert.equal(res.status, 200, 'the pods still serve, and the Gateway still reaches them');
      assert.equal(await deploymentReplicas('qwen-second'), 1, "the provider's Deployment keeps its last valid spec");
      await patchSpec({ scaling: { replicas: 1 }, resources: { gpu: { count: 1 } } });
      await waitFor('Running again', async () => (await md('qwen-second')).status?.phase === 'Running');
    }
    assert.deepEqual(routeWrites('qwen-second').slice(writes), [], 'the route was never rewritten');
  });

  it('upstream status noise never rewrites the route; no ready pod withdraws it, a ready one brings it back', async () => {
    const before = routeWrites('qwen-second').length;
    const rv = JSON.parse(await cluster.k(['get', 'httproute', 'qwen-second', '-n', NS, '-o', 'json'])).metadata
      .resourceVersion;
    for (let i = 0; i < 3; i++) {
      // a status change of the upstream Deployment that changes no ready pod, and metadata noise on the deployment
      await cluster.k([
        'patch',
        'deployment',
        'qwen-second',
        '-n',
        NS,
        '--subresource=status',
        '--type=json',
        '-p',
        JSON.stringify([{ op: 'add', path: '/status/conditions/0/message', value: `noise ${i}` }]),
      ]);
      await cluster.k(['annotate', 'md', 'qwen-second', '-n', NS, '--overwrite', `noise=${i}`]);
    }
    // a fence: a change the route must follow; every write before it would have been noise
    await patchSpec({ gateway: { enabled: true, weight: 7 } });
    await waitFor(
      'the fence reaches the route',
      async () =>
        (await cluster.k([
          'get',
          'httproute',
          'qwen-second',
          '-n',
          NS,
          '-o',
          'jsonpath={.spec.rules[0].backendRefs[0].weight}',
        ])) === '7',
    );
    assert.deepEqual(
      routeWrites('qwen-second')
        .slice(before)
        .map((e) => e.verb),
      ['patch'],
      `one write (the fence) since resourceVersion ${rv}, none for the noise`,
    );
    // no ready pod upstream: the route goes; the provider scales it back and the route returns. The nodes
    // are cordoned first, so the pod the provider's drift correction brings back cannot be Ready at once (on
    // kube-controller-manager it was, within the provider's settle window, and the route rightly stayed)
    const deleted = () => routeWrites('qwen-second').filter((e) => e.verb === 'delete').length;
    const deletes = deleted();
    const nodes = (await cluster.k(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ');
    await cluster.k(['cordon', ...nodes]);
    try {
      await cluster.k(['scale', 'deployment', 'qwen-second', '-n', NS, '--replicas=0']);
      await waitFor('the route withdrawn while no pod is ready', async () => deleted() > deletes, {
        timeoutMs: 60_000,
        detail: () => md('qwen-second'),
      });
    } finally {
      await cluster.k(['uncordon', ...nodes]);
    }
    await reason('qwen-second', 'HTTPRouteAccepted');
    assert.equal(await routeExists('qwen-second'), true);
    const url = (await md('qwen-second')).status?.endpoint?.gatewayUrl;
    await waitFor('a 200 through the gateway again', async () => (await chat(url)).status === 200);
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
    // the split the weights ask for (3:1), counted by the pod each answer names; 200 requests put 75 % within
    // ±11 points at four standard deviations
    const podsOf = async (name: string) =>
      (
        await cluster.k([
          'get',
          'pods',
          '-n',
          NS,
          '-l',
          `kubeairunway.ai/model-deployment=${name}`,
          '-o',
          'jsonpath={.items[*].status.podIP}',
        ])
      )
        .split(' ')
        .filter(Boolean);
    const [podsA, podsB] = [await podsOf('shared-a'), await podsOf('shared-b')];
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 200; i++) {
      const res = await ask();
      assert.equal(res.status, 200, await res.text());
      const ip = (res.headers.get('x-gateway-destination-endpoint') ?? '').split(':')[0]!;
      if (podsA.includes(ip)) counts.a++;
      else if (podsB.includes(ip)) counts.b++;
      else assert.fail(`answer from ${ip}, a pod of neither sharer (${podsA}, ${podsB})`);
    }
    assert.ok(counts.a / 200 >= 0.64 && counts.a / 200 <= 0.86, `3:1 asked, got ${counts.a}:${counts.b}`);
    // sharing is asked by both: a third deployment of the name without a weight gets the conflict
    await cluster.k(['apply', '-f', '-'], llmd('shared-c', { servedName: 'shared' }));
    const third = await reason('shared-c', 'ModelNameConflict');
    assert.match(gatewayReady(third)?.message ?? '', /already served by ModelDeployment routing\/shared-a/);
    await cluster.k(['delete', 'md', 'shared-a', 'shared-b', 'shared-c', '-n', NS]);
  });

  it("when the labelled Gateway goes, routes are withdrawn with GatewayNotFound, never moved to KServe's Gateway; gatewayRef, re-creating and relabelling route again", async () => {
    await reason('qwen-second', 'HTTPRouteAccepted');
    const { metadata, spec } = JSON.parse(
      await cluster.k(['get', 'gateway', 'inference-gateway', '-n', 'gateways', '-o', 'json']),
    ) as { metadata: { labels?: Record<string, string> }; spec: unknown };
    const inferenceGateway = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'inference-gateway', namespace: 'gateways', labels: metadata.labels },
      spec,
    };
    await cluster.k(['delete', 'gateway', 'inference-gateway', '-n', 'gateways']);
    const m = await reason('qwen-second', 'GatewayNotFound');
    assert.equal(gatewayReady(m)?.status, 'False');
    assert.match(gatewayReady(m)?.message ?? '', /gateways\/inference-gateway, which routed it, is gone/);
    await waitFor('the route withdrawn', async () => !(await routeExists('qwen-second')));
    // and it stays withdrawn (not re-created towards kgateway-system/kserve-gateway on a later reconcile)
    await cluster.k(['annotate', 'md', 'qwen-second', '-n', NS, 'poke=1']);
    await reason('qwen-second', 'GatewayNotFound');
    assert.equal(await routeExists('qwen-second'), false);
    // named explicitly, KServe's Gateway routes it; a gatewayRef to a missing Gateway withdraws it again
    const ref = (gatewayRef: { name: string; namespace: string }) => patchSpec({ gateway: { gatewayRef } });
    await ref({ name: 'kserve-gateway', namespace: 'kgateway-system' });
    const onKserve = await reason('qwen-second', 'HTTPRouteAccepted');
    assert.equal(onKserve.status?.gateway?.gatewayName, 'kserve-gateway');
    await waitFor(
      "a 200 through KServe's Gateway",
      async () => (await chat(onKserve.status?.endpoint?.gatewayUrl)).status === 200,
    );
    await ref({ name: 'missing', namespace: 'gateways' });
    const missing = await reason('qwen-second', 'GatewayNotFound');
    assert.match(
      gatewayReady(missing)?.message ?? '',
      /spec\.gateway\.gatewayRef names Gateway gateways\/missing, which does not exist/,
    );
    await waitFor('the route withdrawn', async () => !(await routeExists('qwen-second')));
    // no gatewayRef, and a labelled Gateway again (the label moved to KServe's): routed there
    await cluster.k([
      'patch',
      'md',
      'qwen-second',
      '-n',
      NS,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/spec/gateway/gatewayRef"}]',
    ]);
    await cluster.k([
      'label',
      'gateway',
      'kserve-gateway',
      '-n',
      'kgateway-system',
      'kubeairunway.ai/inference-gateway=true',
    ]);
    const relabelled = await reason('qwen-second', 'HTTPRouteAccepted');
    assert.equal(relabelled.status?.gateway?.gatewayName, 'kserve-gateway');
    await waitFor(
      'a 200 through the relabelled Gateway',
      async () => (await chat(relabelled.status?.endpoint?.gatewayUrl)).status === 200,
    );
    // the labelled Gateway re-created: the first labelled by namespace/name, so routed there again
    await cluster.k(['apply', '-f', '-'], JSON.stringify(inferenceGateway));
    await waitFor('routed through the re-created Gateway', async () => {
      const m = await md('qwen-second');
      return gatewayReady(m)?.reason === 'HTTPRouteAccepted' && m.status?.gateway?.gatewayName === 'inference-gateway';
    });
    const label = (ns: string, name: string, value: string) =>
      cluster.k(['label', 'gateway', name, '-n', ns, '--overwrite', `kubeairunway.ai/inference-gateway${value}`]);
    await label('kgateway-system', 'kserve-gateway', '-');
    // the label leaves the Gateway that routes it, and no other carries it: withdrawn, saying why
    await label('gateways', 'inference-gateway', '-');
    const unlabelled = await reason('qwen-second', 'GatewayNotFound');
    assert.match(
      gatewayReady(unlabelled)?.message ?? '',
      /gateways\/inference-gateway, which routed it, is no longer labelled kubeairunway\.ai\/inference-gateway=true/,
    );
    await waitFor('the route withdrawn', async () => !(await routeExists('qwen-second')));
    await label('gateways', 'inference-gateway', '=true');
    const back = await reason('qwen-second', 'HTTPRouteAccepted');
    await waitFor(
      'a 200 once labelled again',
      async () => (await chat(back.status?.endpoint?.gatewayUrl)).status === 200,
    );
  });
});

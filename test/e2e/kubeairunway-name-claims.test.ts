// Two ModelDeployments claiming one model name on the dev Gateway, with the webhooks up (docs/kubeairunway.md,
// "Model names on a Gateway"): created in one `kubectl apply` (one second), in either order and across
// namespaces, exactly one is routed from the start — the operator never writes a route for the other (its
// audit log says so) — the other gets ModelNameConflict naming the owner, kubectl prints the webhook's
// warning, and every chat answer comes from the owner's pods (x-gateway-destination-endpoint). The owner
// going hands the name over; an owner whose pods are gone for a while takes it back when they return;
// renaming the owner hands it over, and renaming back does not take it back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS_A = 'claims-a';
const NS_B = 'claims-b';
const WRITES = new Set(['create', 'patch', 'update', 'delete']);
const FINALIZER = 'test.modelplane.io/hold';
const HOLD = JSON.stringify([{ op: 'add', path: '/metadata/finalizers/-', value: FINALIZER }]);

interface Md {
  status?: {
    endpoint?: { service?: string; gatewayUrl?: string };
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}
interface Who {
  name: string;
  namespace: string;
}

const deployment = (who: Who, modelName: string) => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: who.name, namespace: who.namespace },
  spec: {
    // the name the pods serve is the name routed (spec.gateway.modelName alone would route a name vLLM refuses)
    model: { id: 'Qwen/Qwen2.5-0.5B-Instruct', servedName: modelName },
    engine: { type: 'vllm' },
    provider: { name: 'llmd' },
    resources: { gpu: { count: 1 }, memory: '16Gi' },
  },
});
const where = (w: Who) => `${w.namespace}/${w.name}`;

describe('one model name claimed twice on the dev Gateway (webhooks up)', { timeout: 300_000 }, () => {
  let cluster: DevTestCluster;
  const md = async (w: Who) =>
    JSON.parse(await cluster.k(['get', 'md', w.name, '-n', w.namespace, '-o', 'json'])) as Md;
  const gatewayReady = (m: Md) => m.status?.conditions?.find((c) => c.type === 'GatewayReady');
  const reason = (w: Who, want: string) =>
    waitFor(
      `${where(w)} GatewayReady reason ${want}`,
      async () => {
        const m = await md(w);
        return gatewayReady(m)?.reason === want ? m : undefined;
      },
      { timeoutMs: 90_000, detail: () => md(w) },
    );
  /** the IPs of the deployment's Ready pods (by its label: the real API server lists no loopback Endpoints) */
  const podsOf = async (w: Who) => {
    const pods = JSON.parse(
      await cluster.k([
        'get',
        'pods',
        '-n',
        w.namespace,
        '-l',
        `kubeairunway.ai/model-deployment=${w.name}`,
        '-o',
        'json',
      ]),
    ) as { items: Array<{ status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } }> };
    return pods.items
      .filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((p) => p.status?.podIP ?? '');
  };
  /** removes the test's finalizer (whatever its place in the list by now) */
  const release = async (w: Who) => {
    const finalizers = JSON.parse(
      await cluster.k(['get', 'md', w.name, '-n', w.namespace, '-o', 'jsonpath={.metadata.finalizers}']),
    ) as string[];
    const at = finalizers.indexOf(FINALIZER);
    const patch = [
      { op: 'test', path: `/metadata/finalizers/${at}`, value: FINALIZER },
      { op: 'remove', path: `/metadata/finalizers/${at}` },
    ];
    await cluster.k(['patch', 'md', w.name, '-n', w.namespace, '--type=json', '-p', JSON.stringify(patch)]);
  };
  /** `n` chat requests for `modelName` through the Gateway: the pod IP each answer came from */
  const servedBy = async (url: string, modelName: string, n: number) => {
    const ips: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: modelName, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }),
      });
      assert.equal(res.status, 200, await res.text());
      ips.push((res.headers.get('x-gateway-destination-endpoint') ?? '').split(':')[0]!);
    }
    return ips;
  };
  /** the operator's writes to the HTTPRoute of `w` (its status is the Gateway's, not counted) */
  const routeWrites = (w: Who) =>
    cluster
      .auditEntries()
      .filter(
        (e) => e.resource === 'httproutes' && WRITES.has(e.verb) && e.namespace === w.namespace && e.name === w.name,
      );
  const assertOnlyOwnerServes = async (owner: Who, other: Who, modelName: string) => {
    const url = (await md(owner)).status?.endpoint?.gatewayUrl ?? '';
    // a renamed deployment's pods roll out with the new served name first
    const ownerPods = await waitFor(`${where(owner)}'s pods answer "${modelName}" through the Gateway`, async () => {
      const pods = await podsOf(owner);
      const [ip] = await servedBy(url, modelName, 1);
      return pods.includes(ip!) && pods;
    });
    const ips = await servedBy(url, modelName, 8);
    assert.ok(
      ips.every((ip) => ownerPods.includes(ip)),
      `every answer from ${where(owner)}'s pods ${ownerPods.join(', ')}; got ${ips.join(', ')} (${where(other)} must get none)`,
    );
  };

  before(async () => {
    cluster = await startDevTestCluster({
      log: new Logger({ level: 'error' }),
      controllers: true,
      namespaces: [NS_A, NS_B],
    });
  });
  after(async () => cluster?.stop());

  const cases: Array<{ name: string; first: Who; second: Who }> = [
    {
      name: 'one namespace, the later name first',
      first: { name: 'zeta', namespace: NS_A },
      second: { name: 'alpha', namespace: NS_A },
    },
    {
      name: 'two namespaces, one name each',
      first: { name: 'twin', namespace: NS_B },
      second: { name: 'twin', namespace: NS_A },
    },
  ];
  for (const [i, c] of cases.entries()) {
    it(`created in one apply (${c.name}): one owner from the start, a conflict naming it, a warning; the owner going hands over`, async () => {
      const modelName = `claimed-${i}`;
      const apply = await cluster.kubectl(
        ['apply', '-f', '-'],
        [deployment(c.first, modelName), deployment(c.second, modelName)].map((d) => JSON.stringify(d)).join('\n'),
      );
      assert.equal(apply.code, 0, apply.stderr);
      assert.match(
        apply.stderr,
        new RegExp(
          `Warning: spec\\.gateway: model name "${modelName}" is (also claimed by|already served through Gateway gateways/inference-gateway by) ModelDeployment ${where(c.first)}`,
        ),
        'kubectl prints the webhook warning for the second',
      );
      const settled = await waitFor(
        'one routed, one in conflict',
        async () => {
          const [a, b] = await Promise.all([md(c.first), md(c.second)]);
          const ra = gatewayReady(a)?.reason;
          const rb = gatewayReady(b)?.reason;
          if (ra === 'HTTPRouteAccepted' && rb === 'ModelNameConflict')
            return { owner: c.first, other: c.second, m: b };
          if (rb === 'HTTPRouteAccepted' && ra === 'ModelNameConflict')
            return { owner: c.second, other: c.first, m: a };
          return undefined;
        },
        { timeoutMs: 90_000, detail: async () => [await md(c.first), await md(c.second)] },
      );
      const { owner, other } = settled;
      assert.equal(gatewayReady(settled.m)?.status, 'False');
      assert.match(
        gatewayReady(settled.m)?.message ?? '',
        new RegExp(
          `model name "${modelName}" on Gateway gateways/inference-gateway is already served by ModelDeployment ${where(owner)}`,
        ),
      );
      assert.deepEqual(
        routeWrites(other).map((e) => `${e.verb} ${e.user}`),
        [],
        `no route was ever written for ${where(other)}`,
      );
      await assertOnlyOwnerServes(owner, other, modelName);
      // the owner goes: the other takes the name over, and the owner's route goes as its deletion starts (held
      // here by a finalizer of the test's, as the providers' cleanup holds it for seconds on a real cluster),
      // not when the garbage collector gets to it — the older route would take the name's requests meanwhile
      await cluster.k(['patch', 'md', owner.name, '-n', owner.namespace, '--type=json', '-p', HOLD]);
      await cluster.k(['delete', 'md', owner.name, '-n', owner.namespace, '--wait=false']);
      await reason(other, 'HTTPRouteAccepted');
      await waitFor(`${where(owner)}'s route withdrawn while it is being deleted`, async () => {
        const gone = (await cluster.kubectl(['get', 'httproute', owner.name, '-n', owner.namespace])).code !== 0;
        return gone && (await cluster.kubectl(['get', 'md', owner.name, '-n', owner.namespace])).code === 0;
      });
      await assertOnlyOwnerServes(other, owner, modelName);
      await release(owner);
      await cluster.k(['delete', 'md', other.name, '-n', other.namespace]);
    });
  }

  it('an owner without pods for a while takes its name back; renaming it hands the name over, renaming back does not take it back', async () => {
    const x = { name: 'renamed', namespace: NS_A };
    const y = { name: 'waiting', namespace: NS_B };
    await cluster.k(['apply', '-f', '-'], JSON.stringify(deployment(x, 'dup')));
    await reason(x, 'HTTPRouteAccepted');
    const created = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify(deployment(y, 'dup')));
    assert.match(
      created.stderr,
      /Warning: spec\.gateway: model name "dup" is already served through Gateway gateways\/inference-gateway by ModelDeployment claims-a\/renamed/,
    );
    await reason(y, 'ModelNameConflict');
    // the owner's pods are gone for a while (its Deployment scaled to 0 upstream; its provider scales it back,
    // but the new pods cannot be scheduled): the waiting claimant serves the name meanwhile, and the owner
    // takes it back once a pod of its is ready again
    const unschedulable = (value: string | null) =>
      cluster.k([
        'patch',
        'deployment',
        x.name,
        '-n',
        x.namespace,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { template: { metadata: { annotations: { 'sim.modelplane.io/fail': value } } } } }),
      ]);
    await unschedulable('Unschedulable');
    await cluster.k(['scale', 'deployment', x.name, '-n', x.namespace, '--replicas=0']);
    await reason(y, 'HTTPRouteAccepted');
    await assertOnlyOwnerServes(y, x, 'dup');
    await unschedulable(null);
    await reason(x, 'HTTPRouteAccepted');
    await reason(y, 'ModelNameConflict');
    await assertOnlyOwnerServes(x, y, 'dup');
    const rename = (name: string) =>
      cluster.k([
        'patch',
        'md',
        x.name,
        '-n',
        x.namespace,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { model: { servedName: name } } }),
      ]);
    await rename('other');
    await reason(y, 'HTTPRouteAccepted');
    await waitFor('x routed for its new name', async () =>
      (await md(x)).status?.conditions?.some(
        (c) => c.type === 'GatewayReady' && c.reason === 'HTTPRouteAccepted' && (c.message ?? '').includes('"other"'),
      ),
    );
    await assertOnlyOwnerServes(y, x, 'dup');
    await assertOnlyOwnerServes(x, y, 'other');
    await rename('dup');
    const back = await reason(x, 'ModelNameConflict');
    assert.match(gatewayReady(back)?.message ?? '', /already served by ModelDeployment claims-b\/waiting/);
    await assertOnlyOwnerServes(y, x, 'dup');
  });
});

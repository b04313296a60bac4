// Replicas mean replicas (docs/kubeairunway.md, "Replicas"), on `modelplane dev` with every provider: a
// ModelDeployment is never Ready=True while it has no ready pod. One deployment per provider is watched
// through every status write while llm-d and Dynamo run `replicas: 0` (honoured: Running, ScaledToZero, no
// serving pod) and scale up to 2, and while every serving pod of each is deleted; KAITO, KubeRay and AIM
// refuse `replicas: 0` at admission, naming the field and the provider.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Informer } from '@modelplane/runtime/cache';
import { Logger } from '@modelplane/runtime/log';
import { type ModelDeployment, ModelDeployments } from '../../src/apis/kubeairunway/index.ts';
import { waitForProviders } from '../../src/cli/dev/providers-ready.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'readypods';
const WEBHOOK = 'vmodeldeployment.kubeairunway.ai';

interface Case {
  provider: string;
  spec: ModelDeployment['spec'];
  /** the serving pods, to delete them */
  pods: (name: string) => string;
}

const vllm = (gpu: { count: number; type?: string }) => ({
  model: { id: 'Qwen/Qwen2.5-0.5B-Instruct' },
  engine: { type: 'vllm' as const },
  resources: { gpu },
});
const byDeployment = (name: string) => `kubeairunway.ai/model-deployment=${name}`;
const CASES: Case[] = [
  {
    provider: 'kaito',
    spec: {
      model: { id: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
      engine: { type: 'llamacpp' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      resources: { cpu: '4' },
    },
    pods: byDeployment,
  },
  { provider: 'dynamo', spec: vllm({ count: 1 }), pods: byDeployment },
  { provider: 'kuberay', spec: vllm({ count: 2 }), pods: byDeployment },
  { provider: 'llmd', spec: vllm({ count: 1 }), pods: byDeployment },
  {
    provider: 'aim',
    spec: vllm({ count: 1, type: 'amd.com/gpu' }),
    pods: (name) => `serving.kserve.io/inferenceservice=${name}`,
  },
];
const ZERO_CAPABLE = new Set(['dynamo', 'llmd']);

describe('Ready means a ready pod, on every provider', { timeout: 300_000 }, () => {
  let cluster: DevTestCluster;
  let watch: Informer<ModelDeployment>;
  /** every status write seen where Ready=True with no ready pod */
  const violations: string[] = [];
  /** per deployment, whether a not-True Ready was seen after it had been True (the watch sees transitions) */
  const dipped = new Set<string>();
  const wasReady = new Set<string>();

  const md = (name: string, spec: ModelDeployment['spec'], replicas: number) =>
    JSON.stringify({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name, namespace: NS },
      spec: { ...spec, scaling: { replicas }, gateway: { modelName: name } },
    });
  const observe = (m: ModelDeployment) => {
    const name = m.metadata.name ?? '';
    const ready = m.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    const pods = m.status?.replicas?.ready ?? 0;
    if (ready === 'True' && pods === 0)
      violations.push(`${name} rv ${m.metadata.resourceVersion}: Ready=True, ${JSON.stringify(m.status?.replicas)}`);
    if (ready === 'True') wasReady.add(name);
    else if (wasReady.has(name)) dipped.add(name);
  };
  const get = (name: string) => cluster.admin.get(ModelDeployments, name, NS);
  const readyWith = (name: string, pods: number) =>
    waitFor(
      `${name} Ready with ${pods} ready pods`,
      async () => {
        const m = await get(name);
        const ready = m.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return ready && m.status?.replicas?.ready === pods && m;
      },
      { timeoutMs: 60_000 },
    );

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), controllers: true, namespaces: [NS] });
    await waitForProviders(
      cluster.admin,
      CASES.map((c) => c.provider),
      new Logger({ level: 'error' }),
      120_000,
    );
    const mapping = await cluster.admin.mapper.mapping(ModelDeployments.apiVersion, ModelDeployments.kind);
    watch = new Informer<ModelDeployment>({
      transport: cluster.admin.transport,
      mapping,
      namespace: NS,
    });
    watch.addHandler({ add: observe, update: (_old, m) => observe(m) });
    watch.start();
    await watch.synced;
  });
  after(async () => {
    await watch?.stop();
    await cluster?.stop();
  });

  it('refuses replicas: 0 at admission on the providers that always run a pod, naming the field and the provider', async () => {
    for (const c of CASES.filter((c) => !ZERO_CAPABLE.has(c.provider))) {
      const r = await cluster.kubectl(
        ['apply', '-f', '-'],
        md(`zero-${c.provider}`, { ...c.spec, provider: { name: c.provider } }, 0),
      );
      assert.notEqual(r.code, 0, r.stdout);
      // the refusal (a warning about the Gateway model name the engine does not serve may come before it)
      assert.equal(
        r.stderr.trim().split('\n').at(-1),
        `Error from server (Forbidden): error when creating "STDIN": admission webhook "${WEBHOOK}" denied the request: spec.scaling.replicas: 0 is not supported by provider '${c.provider}' (it always runs at least one serving pod): set replicas to 1 or more, or use a provider that runs 0 replicas (dynamo, llmd)`,
      );
    }
  });

  it('honours replicas: 0 where a provider can (no serving pod, Running, ScaledToZero), scales up, and survives pod deletion', async () => {
    for (const c of CASES) {
      const replicas = ZERO_CAPABLE.has(c.provider) ? 0 : 1;
      await cluster.k(['apply', '-f', '-'], md(c.provider, { ...c.spec, provider: { name: c.provider } }, replicas));
    }
    for (const name of ZERO_CAPABLE) {
      const zero = await waitFor(
        `${name} scaled to zero`,
        async () => {
          const m = await get(name);
          const ready = m.status?.conditions?.find((c) => c.type === 'Ready');
          return ready?.reason === 'ScaledToZero' && m;
        },
        { timeoutMs: 60_000 },
      );
      assert.equal(zero.status?.phase, 'Running');
      assert.deepEqual(zero.status?.replicas, { desired: 0, ready: 0, available: 0 });
      assert.equal(
        zero.status?.message,
        `${name === 'llmd' ? 'Deployment' : 'DynamoGraphDeployment'} created and scaled to zero (spec.scaling.replicas is 0): no pod serves the model`,
      );
    }
    const llmdPods = JSON.parse(await cluster.k(['get', 'pods', '-n', NS, '-l', byDeployment('llmd'), '-o', 'json']));
    assert.equal(llmdPods.items.length, 0, 'llm-d runs no pod for replicas: 0');
    for (const c of CASES.filter((c) => !ZERO_CAPABLE.has(c.provider))) await readyWith(c.provider, 1);
    // scale up from zero: Ready only once pods are
    for (const name of ZERO_CAPABLE)
      await cluster.k(['patch', 'md', name, '-n', NS, '--type', 'merge', '-p', '{"spec":{"scaling":{"replicas":2}}}']);
    for (const name of ZERO_CAPABLE) await readyWith(name, 2);
    // every serving pod deleted: not Ready until new ones are
    for (const c of CASES) await cluster.k(['delete', 'pods', '-n', NS, '-l', c.pods(c.provider), '--wait=false']);
    for (const c of CASES) await readyWith(c.provider, ZERO_CAPABLE.has(c.provider) ? 2 : 1);
    assert.deepEqual(violations, [], 'Ready=True with no ready pod');
    assert.deepEqual(
      [...dipped].sort(),
      CASES.map((c) => c.provider).sort(),
      'each deployment was seen not Ready while its pods were gone',
    );
  });
});

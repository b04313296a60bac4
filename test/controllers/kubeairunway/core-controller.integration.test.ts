// The core controller on the test cluster (embedded or real API server): selection through the shipped
// InferenceProviderConfigs, reconcile-time validation when no webhook is installed (phase Pending with docs/kubeairunway.md's message),
// recovery when a provider registers later, a broken selection rule reported by a Warning event, and the
// status fields it owns under its own field manager.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureCrd } from '@modelplane/runtime/crd';
import { aimCrds } from '../../../src/apis/aim/index.ts';
import { InferenceProviderConfigs, ModelDeployments } from '../../../src/apis/kubeairunway/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { type CoreCluster, NS, startCoreCluster } from './core-cluster.ts';

describe('kubeairunway core controller', { timeout: 90_000 }, () => {
  let core: CoreCluster;
  let cluster: CoreCluster['cluster'];
  let admin: CoreCluster['admin'];
  const register: CoreCluster['register'] = (name) => core.register(name);
  const create: CoreCluster['create'] = (name, spec, annotations) => core.create(name, spec, annotations);
  const get: CoreCluster['get'] = (name) => core.get(name);
  const selected: CoreCluster['selected'] = (name) => core.selected(name);

  before(async () => {
    core = await startCoreCluster();
    ({ cluster, admin } = core);
  });

  after(async () => core?.stop());

  it('selects per the worked outcomes and records why', async () => {
    await create('cpu', {
      model: { id: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF' },
      engine: { type: 'llamacpp' },
      image: 'ghcr.io/ggml-org/llama.cpp:server',
      resources: { cpu: '4', memory: '8Gi' },
    });
    await create('one-gpu', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    });
    await create('two-gpu', {
      model: { id: 'Qwen/Qwen3-32B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 2 } },
    });
    assert.equal(await selected('cpu'), 'kaito');
    assert.equal(await selected('one-gpu'), 'dynamo');
    assert.equal(await selected('two-gpu'), 'kuberay');
    const md = await get('two-gpu');
    assert.equal(md.status?.conditions?.find((c) => c.type === 'ProviderSelected')?.reason, 'AutoSelected');
    assert.ok(md.status?.provider?.selectedReason);
    // the core's fields are owned by kubeairunway-core and nothing else was written by it
    const entry = md.metadata.managedFields?.find(
      (m) => m.manager === 'kubeairunway-core' && m.subresource === 'status',
    );
    const owned = JSON.stringify(entry?.fieldsV1);
    assert.match(owned, /"f:name"/);
    assert.match(owned, /"k:\{\\"type\\":\\"ProviderSelected\\"\}"/);
    assert.doesNotMatch(owned, /f:replicas|f:endpoint|f:resourceName/);
  });

  it('validates at reconcile time when no webhook is installed: Pending with docs/kubeairunway.md message', async () => {
    await create('bad', { model: { id: 'm' }, engine: { type: 'sglang' }, resources: { gpu: { count: 0 } } });
    const md = await waitFor('bad to be Pending', async () =>
      (await get('bad')).status?.phase === 'Pending' ? get('bad') : undefined,
    );
    assert.equal(md.status?.message, 'SGLang engine requires GPU (set resources.gpu.count > 0)');
    assert.equal(md.status?.conditions?.find((c) => c.type === 'Validated')?.status, 'False');
    assert.equal(md.status?.provider?.name, undefined);
    // fixing the spec lets it proceed: Pending until the selected provider acts (none runs here)
    await admin.patch(ModelDeployments, 'bad', NS, { spec: { resources: { gpu: { count: 1 } } } }, 'merge');
    assert.equal(await selected('bad'), 'dynamo');
    const fixed = await waitFor('the validation message replaced', async () => {
      const m = await get('bad');
      return m.status?.message?.startsWith('waiting for provider dynamo to act on it') && m;
    });
    assert.equal(fixed.status?.phase, 'Pending');
    assert.equal(fixed.status?.conditions?.find((c) => c.type === 'Validated')?.status, 'True');
  });

  it('holds a storage size outside its floor and ceiling at Pending when no webhook refused it, naming the field', async () => {
    const sized = (size: string) => ({
      model: { id: 'm', storage: { volumes: [{ name: 'v', size, mountPath: '/data' }] } },
      engine: { type: 'vllm' as const },
      resources: { gpu: { count: 1 } },
    });
    for (const [name, size, message] of [
      ['tiny', '20', 'spec.model.storage.volumes[0].size: 20 is below the minimum of 1Mi: set a larger size'],
      [
        'huge',
        '1Ei',
        'spec.model.storage.volumes[0].size: 1Ei exceeds the maximum of 64Ti: set a smaller size, or create the PVC yourself and name it in claimName',
      ],
    ] as const) {
      await create(name, sized(size));
      const held = await waitFor(`${name} to be Pending`, async () => {
        const m = await get(name);
        return m.status?.phase === 'Pending' && m;
      });
      assert.equal(held.status?.message, message);
      assert.equal(held.status?.provider?.name, undefined, 'nothing is selected for an invalid spec');
      assert.equal(held.status?.conditions?.find((c) => c.type === 'Validated')?.status, 'False');
    }
  });

  it("Provider '{name}' CRD not installed in cluster: until the provider registers and its upstream CRD is served", async () => {
    await create('amd', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
      provider: { name: 'aim' },
    });
    const pending = await waitFor('amd to be Pending', async () =>
      (await get('amd')).status?.phase === 'Pending' ? get('amd') : undefined,
    );
    assert.match(pending.status?.message ?? '', /^spec\.provider\.name: no provider 'aim' is registered/);
    // registered, but the AIMService CRD it builds is not served: still refused, with the documented message
    await register('aim');
    const still = await waitFor('amd to say the CRD is missing', async () => {
      const m = await get('amd');
      // (its registration's status lands just after its spec: until then it has reported no API)
      return m.status?.message?.includes('is not served') && m;
    });
    assert.equal(still.status?.provider?.name, undefined);
    assert.equal(still.status?.phase, 'Pending');
    assert.equal(
      still.status?.message,
      "Provider 'aim' CRD not installed in cluster: aim.eai.amd.com/v1alpha1 is not served; install the CRD of the provider's operator (the deployment proceeds once it is served)",
    );
    assert.equal(still.status?.conditions?.find((c) => c.type === 'Validated')?.status, 'False');
    // the CRD appears: the watch on CRDs brings the deployment back, nothing needs a restart
    for (const crd of aimCrds()) await ensureCrd(admin, crd);
    assert.equal(await selected('amd'), 'aim');
    const md = await get('amd');
    assert.equal(md.status?.conditions?.find((c) => c.type === 'ProviderSelected')?.reason, 'ExplicitSelection');
  });

  it('skips a rule that fails to compile and says so in one Warning event', async () => {
    const c = admin.withFieldManager('third-party');
    await c.apply(
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'InferenceProviderConfig',
        metadata: { name: 'zz-broken' },
        spec: {
          capabilities: { engines: [{ name: 'vllm', gpuSupport: true }] },
          // one that does not compile, and one at priority 0 that fails to evaluate (reported too)
          selectionRules: [
            { condition: 'spec.engine.type ==', priority: 1000 },
            { condition: 'spec.model.nothing == 1', priority: 0 },
          ],
        },
      } as never,
      { force: true },
    );
    await c.applyStatus(
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'InferenceProviderConfig',
        metadata: { name: 'zz-broken' },
        status: { ready: true, lastHeartbeat: new Date().toISOString() },
      } as never,
      { force: true },
    );
    await waitFor('the provider to be listed', async () =>
      (await admin.list(InferenceProviderConfigs)).items.some((p) => p.metadata.name === 'zz-broken'),
    );
    await create('rules', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    });
    assert.equal(await selected('rules'), 'dynamo');
    const events = await waitFor('the SelectionRuleSkipped event', async () => {
      const out = await cluster.k([
        'get',
        'events',
        '-n',
        NS,
        '--field-selector',
        'involvedObject.name=rules,reason=SelectionRuleSkipped',
        '-o',
        'json',
      ]);
      const items = JSON.parse(out).items as Array<{ message: string; count?: number }>;
      return items.length >= 2 ? items : undefined;
    });
    assert.equal(events.length, 2, 'one event per rule and generation');
    const messages = events.map((e) => e.message).sort();
    assert.match(
      messages[0]!,
      /^InferenceProviderConfig zz-broken: selection rule "spec.engine.type ==" was skipped: /,
    );
    assert.equal(
      messages[1],
      'InferenceProviderConfig zz-broken: selection rule "spec.model.nothing == 1" was skipped: no such key: nothing',
    );
  });

  it('sees a status field it reads changed by someone else at once (no other event comes)', async () => {
    await create('tampered', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    });
    assert.equal(await selected('tampered'), 'dynamo');
    // status.provider is what the core reads as the previous selection; an edit of it takes the field from
    // the core's managedFields entry and changes nothing outside the status
    await admin
      .withFieldManager('by-hand')
      .patch(
        ModelDeployments,
        'tampered',
        NS,
        { status: { provider: { name: 'kaito', selectedReason: 'edited' } } },
        'merge',
        {
          subresource: 'status',
        },
      );
    const judged = await waitFor('the core to judge the edited selection', async () => {
      const md = await get('tampered');
      const c = md.status?.conditions?.find((x) => x.type === 'ProviderSelected');
      return c?.reason === 'PreviouslySelected' ? { md, c } : undefined;
    });
    assert.equal(judged.md.status?.provider?.name, 'kaito');
    assert.match(judged.c.message ?? '', /edited/);
    const core = judged.md.metadata.managedFields?.find(
      (m) => m.manager === 'kubeairunway-core' && m.subresource === 'status',
    );
    assert.match(JSON.stringify(core?.fieldsV1), /"f:provider"/, 'the core owns status.provider again');
  });

  it('leaves a paused deployment alone', async () => {
    await create(
      'paused',
      { model: { id: 'Qwen/Qwen3-8B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
      { 'kubeairunway.ai/reconcile-paused': 'true' },
    );
    await sleep(1_000);
    assert.equal((await get('paused')).status, undefined);
    await cluster.k(['annotate', '-n', NS, 'md', 'paused', 'kubeairunway.ai/reconcile-paused-']);
    assert.equal(await selected('paused'), 'dynamo');
  });

  it('kubectl shows the printer columns', async () => {
    const out = await cluster.k(['get', 'md', '-n', NS, 'two-gpu']);
    assert.match(out, /^NAME\s+PHASE\s+PROVIDER\s+ENGINE\s+READY\s+AGE/);
    assert.match(out, /two-gpu\s+Pending\s+kuberay\s+vllm/);
  });
});

// Provider selection: the worked outcomes of docs/kubeairunway.md with the shipped InferenceProviderConfigs, plus
// ties, readiness (status.ready and heartbeat staleness), stickiness, explicit names and bad rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BUILTIN_PROVIDERS,
  type InferenceProviderConfig,
  type ModelDeployment,
} from '../../../src/apis/kubeairunway/index.ts';
import {
  coarseAge,
  DEFAULT_PROVIDER_SPECS,
  defaultProviderConfig,
  providerReadiness,
  selectProvider,
} from '../../../src/controllers/kubeairunway/selection/index.ts';
import { defaultModelDeployment } from '../../../src/controllers/kubeairunway/validation/index.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const fresh = new Date(NOW - 30_000).toISOString();

function ready(config: InferenceProviderConfig, heartbeat = fresh): InferenceProviderConfig {
  return { ...config, status: { ready: true, version: 'test', lastHeartbeat: heartbeat } };
}
const shipped = (names: readonly string[] = BUILTIN_PROVIDERS) =>
  names.map((n) => ready(defaultProviderConfig(n as (typeof BUILTIN_PROVIDERS)[number])));

function custom(
  name: string,
  rules: Array<{ condition: string; priority?: number }>,
  engines = ['vllm'],
): InferenceProviderConfig {
  return ready({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'InferenceProviderConfig',
    metadata: { name },
    spec: {
      capabilities: {
        engines: engines.map((e) => ({
          name: e as 'vllm',
          servingModes: ['aggregated', 'disaggregated'],
          gpuSupport: true,
          cpuSupport: true,
        })),
      },
      selectionRules: rules,
    },
  });
}

type Spec = ModelDeployment['spec'];
const md = (spec: Spec, status?: ModelDeployment['status']) => ({ spec, ...(status ? { status } : {}) });
/** as stored: after the mutating webhook's defaults */
const defaulted = (spec: Spec) =>
  defaultModelDeployment({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'x' },
    spec,
  });

describe('provider selection: the worked outcomes with every shipped provider ready', () => {
  const cases: Array<[string, Spec, string, number]> = [
    [
      'CPU-only llama.cpp → kaito',
      { model: { id: 'm' }, engine: { type: 'llamacpp' }, resources: { cpu: '8', memory: '16Gi' }, image: 'runner' },
      'kaito',
      100,
    ],
    [
      'CPU-only llama.cpp without a resources block → kaito',
      { model: { source: 'custom' }, engine: { type: 'llamacpp' }, image: 'runner' },
      'kaito',
      100,
    ],
    [
      '1 GPU + vllm → dynamo (50)',
      { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
      'dynamo',
      50,
    ],
    [
      'vllm with no resources gets the default GPU → dynamo',
      { model: { id: 'm' }, engine: { type: 'vllm' } },
      'dynamo',
      50,
    ],
    [
      '2 GPUs + vllm → kuberay (80 beats 50)',
      { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } },
      'kuberay',
      80,
    ],
    [
      '8 GPUs + vllm → kuberay',
      { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 8 } } },
      'kuberay',
      80,
    ],
    [
      'sglang → dynamo',
      { model: { id: 'm' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1 } } },
      'dynamo',
      100,
    ],
    [
      'trtllm → dynamo',
      { model: { id: 'm' }, engine: { type: 'trtllm' }, resources: { gpu: { count: 2 } } },
      'dynamo',
      100,
    ],
    [
      'disaggregated vllm → dynamo (90 over kuberay 0)',
      {
        model: { id: 'm' },
        engine: { type: 'vllm' },
        serving: { mode: 'disaggregated' },
        scaling: { prefill: { gpu: { count: 4 } }, decode: { gpu: { count: 2 } } },
      },
      'dynamo',
      90,
    ],
    [
      '1 amd.com/gpu + vllm → aim',
      { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } },
      'aim',
      200,
    ],
    [
      '4 amd.com/gpu + vllm → aim (beats kuberay)',
      { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 4, type: 'amd.com/gpu' } } },
      'aim',
      200,
    ],
    [
      'amd.com/gpu + sglang → dynamo (aim serves vllm only)',
      { model: { id: 'm' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } },
      'dynamo',
      100,
    ],
  ];
  for (const [name, spec, expected, priority] of cases) {
    it(name, () => {
      const r = selectProvider(md(defaulted(spec).spec), shipped(), { now: NOW });
      assert.equal(r.provider, expected, r.message);
      assert.equal(r.reason, 'AutoSelected');
      assert.equal(r.priority, priority);
      assert.deepEqual(r.skippedRules, [], 'the shipped rules never error');
      assert.match(r.message, /^matched capabilities: engine=\w+, gpu=(true|false), mode=\w+$/);
    });
  }

  it('the shipped rules also stay error-free on specs that were never defaulted', () => {
    for (const [, spec] of cases)
      assert.deepEqual(selectProvider(md(spec), shipped(), { now: NOW }).skippedRules, [], JSON.stringify(spec));
  });

  it('only KAITO installed and 1 GPU vllm → kaito (priority 0 still wins)', () => {
    const r = selectProvider(
      md({ model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }),
      shipped(['kaito']),
      { now: NOW },
    );
    assert.deepEqual([r.provider, r.priority], ['kaito', 0]);
  });

  it('the message reports what was matched', () => {
    const r = selectProvider(
      md({ model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } }),
      shipped(),
      { now: NOW },
    );
    assert.equal(r.message, 'matched capabilities: engine=vllm, gpu=true, mode=aggregated');
  });
});

describe('provider selection: ties, readiness, stickiness and bad rules', () => {
  const gpu1 = { model: { id: 'm' }, engine: { type: 'vllm' as const }, resources: { gpu: { count: 1 } } };

  it('breaks a tie by the lexicographically smallest name, whatever the list order', () => {
    for (const order of [
      ['zeta', 'alpha', 'mid'],
      ['mid', 'zeta', 'alpha'],
    ]) {
      const r = selectProvider(
        md(gpu1),
        order.map((n) => custom(n, [{ condition: 'true', priority: 10 }])),
        { now: NOW },
      );
      assert.equal(r.provider, 'alpha');
    }
    const none = selectProvider(md(gpu1), [custom('b', []), custom('a', [])], { now: NOW });
    assert.deepEqual([none.provider, none.priority], ['a', 0], 'no rules at all: every candidate at 0, smallest name');
  });

  it("takes the maximum priority among a provider's true rules", () => {
    const r = selectProvider(
      md(gpu1),
      [
        custom('a', [{ condition: 'true', priority: 60 }]),
        custom('b', [
          { condition: 'true', priority: 10 },
          { condition: 'true', priority: 70 },
          { condition: 'false', priority: 99 },
        ]),
      ],
      { now: NOW },
    );
    assert.deepEqual([r.provider, r.priority], ['b', 70]);
  });

  it('skips providers that are not ready, and says so when none is', () => {
    const providers = shipped();
    providers.find((p) => p.metadata.name === 'kuberay')!.status!.ready = false;
    const r = selectProvider(md({ ...gpu1, resources: { gpu: { count: 2 } } }), providers, { now: NOW });
    assert.equal(r.provider, 'dynamo', 'kuberay would win with 2 GPUs');

    const down = shipped().map((p) => ({ ...p, status: { ...p.status, ready: false } }));
    const none = selectProvider(md(gpu1), down, { now: NOW });
    assert.equal(none.provider, undefined);
    assert.equal(none.reason, 'NoHealthyProviders');
    assert.match(
      none.message,
      /^no healthy providers available \(aim: not ready \(status\.ready is false\); start its provider controller \(modelplane provider aim, or its Deployment\) and check its logs; /,
    );
    assert.equal(
      selectProvider(md(gpu1), [], { now: NOW }).message,
      'no healthy providers available (no InferenceProviderConfig registered)',
    );
  });

  it('names the dead providers that could run it, when only providers that cannot are alive', () => {
    // aim (AMD GPUs only) is alive; every provider that runs vLLM on an NVIDIA GPU has a stale heartbeat
    const stale = new Date(NOW - 200_000).toISOString();
    const providers = shipped().map((p) => (p.metadata.name === 'aim' ? p : ready(p, stale)));
    const r = selectProvider(md(gpu1), providers, { now: NOW });
    assert.equal(r.provider, undefined);
    assert.equal(r.reason, 'NoHealthyProviders');
    const dead = (n: string) =>
      `${n}: heartbeat stale: last at 2026-03-01T11:56:40.000Z, over 3m ago (stale after 180s), so its controller is not running; start its provider controller (modelplane provider ${n}, or its Deployment) and check its logs`;
    assert.equal(
      r.message,
      `no healthy provider can run this configuration (engine=vllm, gpu=true, mode=aggregated): ${['dynamo', 'kaito', 'kuberay', 'llmd'].map(dead).join('; ')}`,
    );
    // nothing alive or dead fits: still "no compatible provider"
    const sglangCpu = selectProvider(md({ model: { id: 'm' }, engine: { type: 'sglang' } }), providers, { now: NOW });
    assert.equal(sglangCpu.reason, 'NoCompatibleProvider');
  });

  it('treats a stale heartbeat as not ready (threshold is a parameter); one that never heartbeat is taken at its word', () => {
    const stale = new Date(NOW - 10 * 60_000).toISOString();
    const providers = shipped().map((p) => (p.metadata.name === 'dynamo' ? ready(p, stale) : p));
    assert.equal(selectProvider(md(gpu1), shipped(), { now: NOW }).provider, 'dynamo');
    assert.equal(
      selectProvider(md(gpu1), providers, { now: NOW }).provider,
      'kaito',
      'dynamo (50) is stale: kaito and kuberay tie at 0',
    );
    assert.equal(
      selectProvider(md(gpu1), providers, { now: NOW, heartbeatStaleAfterMs: 15 * 60_000 }).provider,
      'dynamo',
      'within a longer threshold',
    );
    const noBeat = shipped().map((p) => (p.metadata.name === 'dynamo' ? { ...p, status: { ready: true } } : p));
    assert.equal(
      selectProvider(md(gpu1), noBeat, { now: NOW }).provider,
      'dynamo',
      'ready: true and never sent a heartbeat: selected, as the public project does',
    );
  });

  it("never offers a vendor-specific provider for another vendor's GPUs (capabilities.gpuTypes)", () => {
    const onlyAimAndKaito = shipped(['aim', 'kaito']);
    assert.equal(
      selectProvider(md(gpu1), onlyAimAndKaito, { now: NOW }).provider,
      'kaito',
      'aim would win the tie at 0 by name',
    );
    const amd = { ...gpu1, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } };
    assert.equal(selectProvider(md(amd), onlyAimAndKaito, { now: NOW }).provider, 'aim');
    const aimDown: InferenceProviderConfig[] = [
      { ...defaultProviderConfig('aim'), status: { ready: false } },
      ...shipped(['dynamo']),
    ];
    assert.equal(
      selectProvider(md(amd), aimDown, { now: NOW }).provider,
      'dynamo',
      'aim down: another provider takes it',
    );
  });

  it('reports why a provider is not ready', () => {
    const p = defaultProviderConfig('dynamo');
    const metadata = { name: 'dynamo' };
    assert.deepEqual(providerReadiness({ metadata, status: { ready: true, lastHeartbeat: fresh } }, NOW), {
      ready: true,
    });
    assert.match(
      providerReadiness(
        { metadata, status: { ready: true, lastHeartbeat: new Date(NOW - 181_000).toISOString() } },
        NOW,
      ).reason!,
      /^heartbeat stale: last at .*, over 3m ago \(stale after 180s\), so its controller is not running; start its provider controller \(modelplane provider dynamo, or its Deployment\) and check its logs$/,
    );
    assert.equal(
      providerReadiness(
        { metadata, status: { ready: true, lastHeartbeat: new Date(NOW - 181_000).toISOString() } },
        NOW,
        300_000,
      ).ready,
      true,
    );
    assert.deepEqual(
      providerReadiness({ metadata, status: { ready: true } }, NOW),
      { ready: true },
      'never heartbeat: taken at its word',
    );
    assert.match(
      providerReadiness({ metadata, status: { ready: true, lastHeartbeat: 'yesterday' } }, NOW).reason!,
      /"yesterday" is not a timestamp; start its provider controller/,
    );
    assert.equal(providerReadiness(p, NOW).ready, false, 'no status at all');
    const crdMissing = {
      metadata,
      status: {
        ready: false,
        conditions: [
          {
            type: 'UpstreamCRDInstalled',
            status: 'False' as const,
            reason: 'CRDNotInstalled',
            message: "Dynamo's DynamoGraphDeployment CRD is not installed",
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    };
    assert.equal(
      providerReadiness(crdMissing, NOW).reason,
      "not ready (status.ready is false): Dynamo's DynamoGraphDeployment CRD is not installed; fix that, or start its provider controller (modelplane provider dynamo, or its Deployment) and check its logs",
    );
  });

  it('returns NoCompatibleProvider when no ready provider has the engine, GPU/CPU and mode', () => {
    const r = selectProvider(
      md({
        model: { id: 'm' },
        engine: { type: 'trtllm' },
        serving: { mode: 'disaggregated' },
        scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
      }),
      shipped(),
      { now: NOW },
    );
    assert.equal(r.reason, 'NoCompatibleProvider');
    assert.equal(
      r.message,
      'no compatible provider found for this configuration (engine=trtllm, gpu=true, mode=disaggregated)',
    );
    const cpuVllm = selectProvider(
      md({ model: { id: 'm' }, engine: { type: 'vllm' }, resources: { cpu: '4' } }),
      shipped(),
      { now: NOW },
    );
    assert.equal(cpuVllm.reason, 'NoCompatibleProvider', 'nobody ships vLLM on CPU');
  });

  it('is sticky: an earlier choice in status.provider.name is kept even if rules now prefer another', () => {
    const r = selectProvider(
      md(
        { ...gpu1, resources: { gpu: { count: 4 } } },
        {
          provider: { name: 'dynamo', selectedReason: 'matched capabilities: engine=vllm, gpu=true, mode=aggregated' },
        },
      ),
      shipped(),
      { now: NOW },
    );
    assert.deepEqual(
      [r.provider, r.reason, r.message],
      ['dynamo', 'PreviouslySelected', 'matched capabilities: engine=vllm, gpu=true, mode=aggregated'],
    );
    const gone = selectProvider(md(gpu1, { provider: { name: 'kuberay' } }), [], { now: NOW });
    assert.deepEqual(
      [gone.provider, gone.reason],
      ['kuberay', 'PreviouslySelected'],
      'even when that provider is gone',
    );
  });

  it('takes spec.provider.name as is (explicit selection), before stickiness', () => {
    const r = selectProvider(
      md({ ...gpu1, provider: { name: 'kuberay' } }, { provider: { name: 'dynamo' } }),
      shipped(),
      { now: NOW },
    );
    assert.deepEqual(
      [r.provider, r.reason, r.message],
      ['kuberay', 'ExplicitSelection', 'explicit provider selection'],
    );
  });

  it('skips and reports rules that fail to compile, fail to evaluate or are not bool', () => {
    const providers = [
      custom('a', [
        { condition: 'spec.engine.type ==', priority: 100 },
        { condition: 'spec.nothing.here == 1', priority: 90 },
        { condition: "'not a bool'", priority: 80 },
        { condition: 'true', priority: 5 },
      ]),
      custom('b', [{ condition: 'spec.resources.gpu.count == 1', priority: 10 }]),
    ];
    const r = selectProvider(md(gpu1), providers, { now: NOW });
    assert.deepEqual([r.provider, r.priority], ['b', 10], 'a sits at 5: its failing rules count for nothing');
    assert.deepEqual(
      r.skippedRules.map((s) => [s.provider, s.rule]),
      [
        ['a', 'spec.engine.type =='],
        ['a', 'spec.nothing.here == 1'],
        ['a', "'not a bool'"],
      ],
    );
    assert.match(r.skippedRules[0]!.error, /^ERROR: <input>:1:/);
    assert.match(r.skippedRules[1]!.error, /no such key: nothing/);
    assert.match(r.skippedRules[2]!.error, /must evaluate to a bool/);
  });

  it('reports a priority-0 rule that fails to evaluate, and still lets its provider compete at 0', () => {
    const providers = [
      custom('a', [{ condition: 'spec.nothing.here == 1', priority: 0 }]),
      custom('b', [{ condition: 'false', priority: 0 }]),
    ];
    const r = selectProvider(md(gpu1), providers, { now: NOW });
    assert.deepEqual([r.provider, r.priority], ['a', 0], 'a tie at 0 goes to the smallest name');
    assert.deepEqual(
      r.skippedRules.map((s) => [s.provider, s.rule]),
      [['a', 'spec.nothing.here == 1']],
    );
    assert.equal(r.skippedRules[0]!.error, 'no such key: nothing');
  });

  it('exposes exactly one CEL variable, spec (self is unknown)', () => {
    const r = selectProvider(
      md(gpu1),
      [
        custom('a', [{ condition: "self.engine.type == 'vllm'", priority: 50 }]),
        custom('b', [{ condition: "spec.engine.type == 'vllm'", priority: 40 }]),
      ],
      { now: NOW },
    );
    assert.equal(r.provider, 'b');
    assert.match(r.skippedRules[0]!.error, /self/);
  });

  it('sees integers as CEL ints and explicit zeros as present fields', () => {
    const rules = [
      { condition: 'has(spec.scaling) && spec.scaling.replicas == 0 && spec.scaling.replicas + 1 == 1', priority: 10 },
    ];
    const zeroCapable = (p: InferenceProviderConfig) => ({
      ...p,
      spec: { ...p.spec, capabilities: { ...p.spec.capabilities, zeroReplicas: true } },
    });
    const r = selectProvider(
      md({ ...gpu1, scaling: { replicas: 0 } }),
      [zeroCapable(custom('zero', rules)), zeroCapable(custom('other', []))],
      { now: NOW },
    );
    assert.deepEqual([r.provider, r.skippedRules], ['zero', []]);
  });

  it('never selects a provider that cannot run 0 replicas for replicas: 0', () => {
    const spec = { ...gpu1, scaling: { replicas: 0 } };
    // the shipped providers: dynamo and llm-d run 0 replicas, kuberay and KAITO always run a pod
    const r = selectProvider(md({ ...spec, resources: { gpu: { count: 2 } } }), shipped(), { now: NOW });
    assert.equal(r.provider, 'dynamo', 'kuberay would win 2 GPUs, but cannot run 0 replicas');
    const none = selectProvider(md(spec), shipped(['kaito', 'kuberay']), { now: NOW });
    assert.equal(none.reason, 'NoCompatibleProvider');
    assert.match(none.message, /replicas=0/);
  });

  it('ships a rule for every built-in provider but llm-d (chosen when named, or as the only fit), and capabilities that never offer vLLM on CPU', () => {
    for (const name of BUILTIN_PROVIDERS)
      assert.equal((DEFAULT_PROVIDER_SPECS[name].selectionRules ?? []).length > 0, name !== 'llmd', name);
    assert.equal(DEFAULT_PROVIDER_SPECS.llmd.capabilities?.requiresCRD, false);
    // a cluster with only llm-d registered still serves a GPU vLLM deployment
    assert.equal(selectProvider(md(gpu1), shipped(['llmd']), { now: NOW }).provider, 'llmd');
    for (const name of BUILTIN_PROVIDERS) {
      const vllm = DEFAULT_PROVIDER_SPECS[name].capabilities?.engines?.find((e) => e.name === 'vllm');
      assert.equal(vllm?.cpuSupport, false, name);
    }
  });
});

describe('coarseAge: the age a stale heartbeat shows in messages', () => {
  it('changes only at a few steps, so a dead provider does not rewrite its deployments at every look', () => {
    const table: [number, string][] = [
      [0, 'under 1m ago'],
      [59, 'under 1m ago'],
      [60, 'over 1m ago'],
      [181, 'over 3m ago'],
      [299, 'over 3m ago'],
      [3_630, 'over 1h ago'],
      [86_399, 'over 12h ago'],
      [86_400, 'over 1d ago'],
      [3 * 86_400 + 5, 'over 3d ago'],
    ];
    for (const [age, text] of table) assert.equal(coarseAge(age), text, `${age}s`);
    // every distinct text over a week of looks every 30 s: the messages that can be written
    const texts = new Set(Array.from({ length: (7 * 86_400) / 30 }, (_, i) => coarseAge(180 + i * 30)));
    assert.ok(texts.size <= 16, `${texts.size} distinct messages in a week`);
  });
});

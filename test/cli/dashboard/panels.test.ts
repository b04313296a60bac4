// The dashboard's pure parts: the provider-selection explanation agrees with selectProvider, the AIM route
// panel shows how the path was rendered, the form gives the webhook's messages, secrets never go out, and
// the autoscaler history stays bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { InferenceProviderConfig, ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import { BUILTIN_PROVIDERS } from '../../../src/apis/kubeairunway/index.ts';
import {
  type AutoscalerHistory,
  autoscalerPanel,
  formatNumber,
  HISTORY_LIMIT,
  recordAutoscalerPoint,
  scaleMarkers,
  thresholdsFor,
} from '../../../src/cli/dashboard/panels/autoscaler.ts';
import { configPanels } from '../../../src/cli/dashboard/panels/config.ts';
import { routePanel } from '../../../src/cli/dashboard/panels/route.ts';
import { REDACTED, redactConfigText, sanitizeObject } from '../../../src/cli/dashboard/sanitize.ts';
import { validateForm } from '../../../src/cli/dashboard/validate.ts';
import type { AIMService } from '../../../src/controllers/aim/shared/kinds.ts';
import {
  defaultProviderConfig,
  explainSelection,
  selectProvider,
} from '../../../src/controllers/kubeairunway/selection/index.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
/** `${env.NAME}`: the reference form Llama Stack configs use (built, so no string holds a template-like literal) */
const envRef = (name: string) => `$\{env.${name}}`;
const providers: InferenceProviderConfig[] = BUILTIN_PROVIDERS.map((p) => {
  const c = defaultProviderConfig(p);
  return {
    ...c,
    status: { ready: true, lastHeartbeat: new Date(NOW - 1000).toISOString() },
  } as InferenceProviderConfig;
});
const md = (spec: Record<string, unknown>, status?: Record<string, unknown>): ModelDeployment =>
  ({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'm', namespace: 'ns' },
    spec,
    ...(status ? { status } : {}),
  }) as ModelDeployment;

describe('explainSelection', () => {
  const specs: Array<[string, Record<string, unknown>]> = [
    ['CPU llama.cpp', { model: { id: 'x' }, engine: { type: 'llamacpp' }, resources: { cpu: '4' } }],
    ['one NVIDIA GPU vLLM', { model: { id: 'x' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }],
    ['two GPUs vLLM', { model: { id: 'x' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } }],
    [
      'AMD GPU vLLM',
      { model: { id: 'x' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } },
    ],
  ];
  for (const [name, spec] of specs) {
    it(`${name}: picks what selectProvider picks, and says why`, () => {
      const want = selectProvider({ spec } as ModelDeployment, providers, { now: NOW });
      const e = explainSelection(md(spec), providers, NOW);
      assert.equal(e.wouldSelect, want.provider);
      assert.equal(e.how, 'auto');
      const chosen = e.providers.filter((p) => p.chosen);
      assert.deepEqual(
        chosen.map((p) => p.name),
        [want.provider],
      );
      assert.equal(chosen[0]!.priority, want.priority);
      assert.ok(chosen[0]!.compatible);
      for (const p of e.providers) if (!p.compatible) assert.match(p.compatibleReason!, /engine|GPU|mode/);
    });
  }

  it('sticky and explicit choices are named as such; a dead provider says why it is not ready', () => {
    const spec = { model: { id: 'x' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };
    const sticky = explainSelection(
      md(spec, { provider: { name: 'kuberay', selectedReason: 'earlier' } }),
      providers,
      NOW,
    );
    assert.equal(sticky.how, 'sticky');
    assert.equal(sticky.selected, 'kuberay');
    assert.deepEqual(
      sticky.providers.filter((p) => p.chosen).map((p) => p.name),
      ['kuberay'],
    );
    assert.notEqual(sticky.wouldSelect, 'kuberay', 'the rules would pick another today');
    assert.equal(explainSelection(md({ ...spec, provider: { name: 'dynamo' } }), providers, NOW).how, 'explicit');
    const auto = explainSelection(
      md(spec, {
        provider: { name: 'dynamo' },
        conditions: [{ type: 'ProviderSelected', status: 'True', reason: 'AutoSelected' }],
      }),
      providers,
      NOW,
    );
    assert.equal(auto.how, 'auto', 'recorded as chosen by the rules');
    const dead = providers.map((p) =>
      p.metadata.name === 'dynamo' ? { ...p, status: { ready: true, lastHeartbeat: '2020-01-01T00:00:00Z' } } : p,
    );
    const e = explainSelection(md(spec), dead as InferenceProviderConfig[], NOW);
    const dynamo = e.providers.find((p) => p.name === 'dynamo')!;
    assert.equal(dynamo.ready, false);
    assert.match(dynamo.readyReason!, /heartbeat stale/);
  });

  it('a rule that does not compile is shown as an error, not hidden', () => {
    const bad = {
      ...providers[0]!,
      spec: { ...providers[0]!.spec, selectionRules: [{ condition: 'spec.engine.type ==', priority: 5 }] },
    } as InferenceProviderConfig;
    const e = explainSelection(
      md({ model: { id: 'x' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }),
      [bad],
      NOW,
    );
    assert.equal(e.providers[0]!.rules[0]!.result, 'error');
    assert.ok(e.providers[0]!.rules[0]!.error);
  });
});

describe('routePanel', () => {
  const svc = (spec: Record<string, unknown>): AIMService =>
    ({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMService',
      metadata: { name: 'qwen-chat', namespace: 'ml', uid: 'u1', labels: { project: 'chat' } },
      spec: { model: { name: 'm' }, ...spec },
      status: { routing: { path: '/ml/chat/qwen-chat' } },
    }) as unknown as AIMService;
  const rc = (routing: Record<string, unknown>): KubeObject => ({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMRuntimeConfig',
    metadata: { name: 'default', namespace: 'ml', uid: 'r1' },
    spec: { routing },
  });

  it('the runtime config template, each placeholder and the rendered path', () => {
    const p = routePanel(svc({}), {
      namespaced: rc({
        enabled: true,
        gatewayRef: { name: 'gw', namespace: 'gateways' },
        pathTemplate: "/{.metadata.namespace}/{.metadata.labels['project']}/{.metadata.name}",
      }) as never,
    });
    assert.equal(p.enabled, true);
    assert.equal(p.renderedPath, '/ml/chat/qwen-chat');
    assert.equal(p.statusPath, '/ml/chat/qwen-chat');
    assert.match(p.source!, /AIMRuntimeConfig ml\/default/);
    assert.deepEqual(
      p.placeholders.map((x) => x.value),
      ['ml', 'chat', 'qwen-chat'],
    );
    assert.equal(p.gateway, 'gateways/gw');
  });

  it("the service's own template wins; a placeholder that finds nothing is named", () => {
    const p = routePanel(svc({ routing: { pathTemplate: '/{.metadata.labels.missing}/x' } }), {
      namespaced: rc({ enabled: true, gatewayRef: { name: 'gw' }, pathTemplate: '/{.metadata.name}' }) as never,
    });
    assert.equal(p.template, '/{.metadata.labels.missing}/x');
    assert.ok(p.problem, 'the template does not render');
    assert.ok(p.placeholders[0]!.error);
  });

  it('routing off, and a runtime config that does not exist', () => {
    assert.match(routePanel(svc({}), { namespaced: rc({ enabled: false }) as never }).problem!, /routing is off/);
    assert.match(routePanel(svc({ runtimeConfigName: 'nope' }), {}).problem!, /nope not found/);
  });
});

describe('validateForm', () => {
  const form = (metadata: Record<string, unknown>, spec: Record<string, unknown>) => ({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata,
    spec,
  });

  it('invalid input: the messages the webhook and the API server would give, by field', () => {
    const r = validateForm(
      form(
        { name: 'bad.name', namespace: 'ns' },
        { model: { source: 'huggingface' }, engine: { type: 'vllm' }, resources: { gpu: { count: 0 } } },
      ),
      { providers },
    );
    const fields = r.errors.map((e) => e.field);
    assert.ok(fields.includes('metadata.name'), fields.join());
    assert.ok(fields.includes('spec.model.id'), fields.join());
    assert.ok(fields.includes('spec.resources.gpu.count'), fields.join());
    assert.ok(r.errors.some((e) => /must not contain dots/.test(e.message)));
  });

  it('a wrong type is reported by the schema, naming the field', () => {
    const r = validateForm(
      form(
        { name: 'a', namespace: 'ns' },
        { model: { id: 'x' }, engine: { type: 'vllm' }, scaling: { replicas: 'three' } },
      ),
    );
    assert.equal(r.errors[0]!.field, 'spec.scaling.replicas');
  });

  it('a provider that is not registered, or whose API is not served, is refused as the webhook does', () => {
    const r = validateForm(
      form(
        { name: 'a', namespace: 'ns' },
        {
          model: { id: 'x' },
          engine: { type: 'vllm' },
          provider: { name: 'nosuch' },
          resources: { gpu: { count: 1 } },
        },
      ),
      { providers, served: new Set() },
    );
    assert.ok(
      r.errors.some((e) => e.field === 'spec.provider.name'),
      JSON.stringify(r.errors),
    );
  });

  it('valid input: no errors, the defaulted object, warnings kept', () => {
    const r = validateForm(
      form(
        { name: 'ok', namespace: 'ns' },
        {
          model: { id: 'Qwen/Qwen3-0.6B' },
          engine: { type: 'vllm', trustRemoteCode: true },
          resources: { gpu: { count: 1 } },
        },
      ),
      { providers },
    );
    assert.deepEqual(r.errors, []);
    assert.equal(r.warnings.length, 1);
    assert.equal((r.defaulted as ModelDeployment).spec.model.source, 'huggingface');
  });

  it('not an object: one message, no crash', () => {
    assert.equal(validateForm('hello').errors.length, 1);
    assert.equal(validateForm(null).errors.length, 1);
  });
});

describe('secrets never reach the browser', () => {
  it('objects lose managedFields, last-applied and credential literals; references stay', () => {
    const obj = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'd',
        managedFields: [{ manager: 'x' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"password":"hunter2"}', keep: 'me' },
      },
      spec: {
        env: [
          { name: 'API_TOKEN', value: 'abc123' },
          { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } },
          { name: 'REF_TOKEN', value: envRef('X') },
        ],
        password: 'pw',
        secretName: 'creds',
        huggingFaceToken: 'hf-secret-name',
      },
    } as unknown as KubeObject;
    const out = JSON.stringify(sanitizeObject(obj));
    for (const leak of ['hunter2', 'abc123', '"pw"', 'managedFields'])
      assert.ok(!out.includes(leak), `${leak} in ${out}`);
    for (const kept of ['secretKeyRef', '"creds"', envRef('X'), 'hf-secret-name', '"keep":"me"'])
      assert.ok(out.includes(kept), `${kept} missing from ${out}`);
  });

  it('a Secret that slips in shows key names only', () => {
    const out = sanitizeObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { token: 'c2VjcmV0' },
    } as unknown as KubeObject);
    assert.deepEqual((out as unknown as { data: Record<string, string> }).data, { token: REDACTED });
  });

  it('configuration text: literal credentials replaced, references listed', () => {
    const { text, secretRefs } = redactConfigText(
      `providers:\n  - provider_id: openai\n    config:\n      api_key: ${envRef('LLSD_OPENAI_API_KEY')}\n      password: plain\n      max_tokens: 4096\n      url: http://x\n`,
    );
    assert.ok(text.includes(`api_key: ${envRef('LLSD_OPENAI_API_KEY')}`));
    assert.ok(text.includes(`password: ${REDACTED}`));
    assert.ok(!text.includes('plain'));
    assert.ok(text.includes('max_tokens: 4096'), 'a setting named like a credential word is not one');
    assert.deepEqual(secretRefs, ['LLSD_OPENAI_API_KEY']);
  });

  it('a setting read from the environment is not listed as a secret (SQLITE_STORE_DIR is a path)', () => {
    const { secretRefs } = redactConfigText(
      `metadata_store:\n  db_path: \${env.SQLITE_STORE_DIR:=/.llama}/registry.db\nproviders:\n  - config:\n      host: \${env.LLSD_PG_HOST}\n      url: \${env.VLLM_URL:=http://x}\n      token: \${env.BRAVE}\n`,
    );
    assert.deepEqual(secretRefs, ['BRAVE', 'LLSD_PG_HOST']);
  });

  it('the config panel shows the ConfigMap the Deployment mounts, redacted', () => {
    const cm = (name: string, data: string): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'ns' },
        data: { 'config.yaml': data },
      }) as unknown as KubeObject;
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'ns' },
      spec: { template: { spec: { volumes: [{ name: 'c', configMap: { name: 'x-config-bbbb' } }] } } },
    } as unknown as KubeObject;
    const panels = configPanels(dep, [cm('x-config-aaaa', 'old: 1'), cm('x-config-bbbb', 'token: s3cret'), dep]);
    assert.equal(panels.length, 1);
    assert.equal(panels[0]!.source, 'ConfigMap ns/x-config-bbbb');
    assert.ok(!panels[0]!.text.includes('s3cret'));
  });
});

describe('autoscaler history', () => {
  const va = (desired: number): KubeObject =>
    ({
      apiVersion: 'llmd.ai/v1alpha1',
      kind: 'VariantAutoscaling',
      metadata: { name: 'v', namespace: 'ns' },
      status: { desiredOptimizedAlloc: { accelerator: 'H100', numReplicas: desired } },
    }) as unknown as KubeObject;

  it('records changes only, bounded', () => {
    const h: AutoscalerHistory = new Map();
    recordAutoscalerPoint(h, 'k', va(1), 1, 1);
    recordAutoscalerPoint(h, 'k', va(1), 1, 2);
    recordAutoscalerPoint(h, 'k', va(2), 1, 3);
    assert.deepEqual(h.get('k'), [
      { t: 1, desired: 1, current: 1 },
      { t: 3, desired: 2, current: 1 },
    ]);
    for (let i = 0; i < HISTORY_LIMIT + 50; i++) recordAutoscalerPoint(h, 'k', va(i % 7), i, 10 + i);
    assert.equal(h.get('k')!.length, HISTORY_LIMIT);
  });

  it("prefers the autoscaler's own decision history, with load, KV-cache and queue", () => {
    const panel = autoscalerPanel(va(3), {
      observed: [{ t: 1, desired: 1 }],
      feed: () => [{ time: '2026-01-01T00:00:00Z', current: 2, desired: 3, kvCacheUsage: 0.5, queueLength: 13 / 3 }],
    });
    assert.deepEqual(panel.points, [{ t: NOW, current: 2, desired: 3, kvCache: 0.5, queue: 13 / 3 }]);
    assert.equal(panel.latest, 'current 2 → desired 3, KV-cache 50%, queue 4.3', 'numbers for people');
    assert.match(autoscalerPanel(va(3), { observed: [{ t: 1, desired: 1 }] }).source, /observed/);
  });

  it('thresholds as the autoscaler resolves them: the namespace map over the global one, the model entry over default', () => {
    const cm = (namespace: string, data: Record<string, string>) =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'saturation-scaling-config', namespace },
        data,
      }) as unknown as KubeObject;
    const withModel = { ...va(1), spec: { modelID: 'm' } } as unknown as KubeObject;
    const global = cm('workload-variant-autoscaler-system', {
      default: 'kvCacheThreshold: 0.8\nqueueLengthThreshold: 5\n',
      mine: 'model_id: m\nkvCacheThreshold: 0.6\n',
    });
    assert.deepEqual(thresholdsFor(withModel, [global]), {
      kvCache: 0.6,
      queue: 5,
      source: 'workload-variant-autoscaler-system/saturation-scaling-config[mine]',
    });
    const local = cm('ns', { default: 'kvCacheThreshold: 0.5\nqueueLengthThreshold: 2\n' });
    assert.deepEqual(thresholdsFor(withModel, [global, local]), {
      kvCache: 0.5,
      queue: 2,
      source: 'ns/saturation-scaling-config[default]',
    });
    assert.equal(thresholdsFor(withModel, []), undefined, 'no ConfigMap visible: no threshold drawn, none invented');
  });

  it("scale markers: the autoscaler's ScaleUp/ScaleDown events with their words, oldest first; other events and children are not markers", () => {
    const ev = (reason: string, lastSeen: string, object?: string) => ({
      type: 'Normal',
      reason,
      message: `${reason} because`,
      count: 1,
      lastSeen,
      source: 'x',
      ...(object ? { object } : {}),
    });
    assert.deepEqual(
      scaleMarkers([
        ev('ScaleDown', '2026-01-01T00:02:00Z'),
        ev('ScaleUp', '2026-01-01T00:01:00Z'),
        ev('OptimizationSucceeded', '2026-01-01T00:00:30Z'),
        ev('ScaleUp', '2026-01-01T00:00:40Z', 'Deployment d'),
      ]),
      [
        { t: Date.parse('2026-01-01T00:01:00Z'), reason: 'ScaleUp', message: 'ScaleUp because' },
        { t: Date.parse('2026-01-01T00:02:00Z'), reason: 'ScaleDown', message: 'ScaleDown because' },
      ],
    );
  });

  it('formatNumber: at most the given decimals, no trailing zeros, odd values spelled', () => {
    assert.deepEqual(
      [4.333333333333333, 4, 0.1 + 0.2, Number.NaN].map((v) => formatNumber(v)),
      ['4.3', '4', '0.3', 'NaN'],
    );
  });
});

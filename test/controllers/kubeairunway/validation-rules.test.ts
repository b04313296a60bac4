// The core webhook's validation, rule by rule: docs/kubeairunway.md's table with its exact messages, the provider CRD
// check, upstream's bounds where docs/kubeairunway.md is silent, warnings, and the message a webhook denies with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InferenceProviderConfig, ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  admissionMessage,
  defaultModelDeployment,
  type ValidationContext,
  validateModelDeployment,
} from '../../../src/controllers/kubeairunway/validation/index.ts';

type Spec = ModelDeployment['spec'];
const md = (spec: Spec, name = 'my-llm'): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name, namespace: 'ml' },
  spec,
});
const validate = (spec: Spec, ctx?: ValidationContext) =>
  validateModelDeployment(defaultModelDeployment(md(spec)), undefined, ctx);

const VALID_GPU: Spec = {
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 } },
};
const DISAGG: Spec = {
  model: { id: 'm' },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 2, gpu: { count: 4 } }, decode: { replicas: 4, gpu: { count: 2 } } },
};

describe("docs/kubeairunway.md's validation table, exact messages", () => {
  const cases: Array<[string, Spec, string, string]> = [
    [
      'vllm with gpu.count 0',
      { ...VALID_GPU, resources: { gpu: { count: 0 } } },
      'spec.resources.gpu.count',
      'vLLM engine requires GPU (set resources.gpu.count > 0)',
    ],
    [
      'sglang with gpu.count 0',
      { ...VALID_GPU, engine: { type: 'sglang' }, resources: { gpu: { count: 0 } } },
      'spec.resources.gpu.count',
      'SGLang engine requires GPU (set resources.gpu.count > 0)',
    ],
    [
      'trtllm with gpu.count 0',
      { ...VALID_GPU, engine: { type: 'trtllm' }, resources: { gpu: { count: 0 } } },
      'spec.resources.gpu.count',
      'TensorRT-LLM engine requires GPU (set resources.gpu.count > 0)',
    ],
    [
      'vllm with CPU resources only (no gpu block)',
      { ...VALID_GPU, resources: { cpu: '8' } },
      'spec.resources.gpu.count',
      'vLLM engine requires GPU (set resources.gpu.count > 0)',
    ],
    [
      'disaggregated with spec.resources.gpu',
      { ...DISAGG, resources: { gpu: { count: 1 } } },
      'spec.resources.gpu',
      'Cannot specify both resources.gpu and scaling.prefill/decode',
    ],
    [
      'disaggregated without scaling',
      { ...DISAGG, scaling: undefined },
      'spec.scaling',
      'Disaggregated mode requires scaling.prefill and scaling.decode',
    ],
    [
      'disaggregated without scaling.decode',
      { ...DISAGG, scaling: { prefill: { gpu: { count: 1 } } } },
      'spec.scaling',
      'Disaggregated mode requires scaling.prefill and scaling.decode',
    ],
    [
      'disaggregated without scaling.prefill',
      { ...DISAGG, scaling: { decode: { gpu: { count: 1 } } } },
      'spec.scaling',
      'Disaggregated mode requires scaling.prefill and scaling.decode',
    ],
    [
      'disaggregated without scaling.prefill.gpu.count',
      { ...DISAGG, scaling: { prefill: { replicas: 1 }, decode: { gpu: { count: 1 } } } },
      'spec.scaling.prefill.gpu.count',
      'Disaggregated mode requires scaling.prefill.gpu.count',
    ],
    [
      'disaggregated with scaling.prefill.gpu.count 0',
      { ...DISAGG, scaling: { prefill: { gpu: { count: 0 } }, decode: { gpu: { count: 1 } } } },
      'spec.scaling.prefill.gpu.count',
      'Disaggregated mode requires scaling.prefill.gpu.count',
    ],
    [
      'disaggregated without scaling.decode.gpu.count',
      { ...DISAGG, scaling: { prefill: { gpu: { count: 1 } }, decode: { replicas: 1 } } },
      'spec.scaling.decode.gpu.count',
      'Disaggregated mode requires scaling.decode.gpu.count',
    ],
    [
      'missing engine.type',
      { model: { id: 'm' }, resources: { cpu: '1' } },
      'spec.engine.type',
      'engine.type is required',
    ],
    [
      'missing engine.type with an engine block',
      { model: { id: 'm' }, engine: { contextLength: 4096 }, resources: { cpu: '1' } },
      'spec.engine.type',
      'engine.type is required',
    ],
    [
      'missing model.id (source defaults to huggingface)',
      { model: {}, engine: { type: 'vllm' } },
      'spec.model.id',
      'model.id is required when source is huggingface',
    ],
    [
      'empty model.id with source huggingface',
      { model: { id: '', source: 'huggingface' }, engine: { type: 'vllm' } },
      'spec.model.id',
      'model.id is required when source is huggingface',
    ],
  ];
  for (const [name, spec, field, message] of cases) {
    it(`${name} → "${message}"`, () => {
      const { errors } = validate(spec);
      assert.deepEqual(errors, [{ field, message }]);
      assert.equal(admissionMessage(errors), message, 'a single error is denied with exactly its message');
    });
  }

  it('accepts the valid shapes the rules are about', () => {
    for (const spec of [
      VALID_GPU,
      DISAGG,
      { model: { id: 'm' }, engine: { type: 'vllm' } } as Spec, // the defaulter gives it one GPU
      { model: { source: 'custom' }, engine: { type: 'llamacpp' }, resources: { cpu: '4' }, image: 'runner' } as Spec,
      { model: { id: 'm' }, engine: { type: 'llamacpp' }, resources: { gpu: { count: 0 }, cpu: '4' } } as Spec,
    ]) {
      assert.deepEqual(validate(spec), { errors: [], warnings: [] }, JSON.stringify(spec));
    }
  });

  it('reports every broken rule at once, joined by "; "', () => {
    const { errors } = validate({ model: {}, serving: { mode: 'disaggregated' }, resources: { gpu: { count: 1 } } });
    assert.equal(
      admissionMessage(errors),
      'model.id is required when source is huggingface; engine.type is required; Cannot specify both resources.gpu and scaling.prefill/decode; Disaggregated mode requires scaling.prefill and scaling.decode',
    );
  });

  it('refuses replicas: 0 for a provider that cannot run 0 replicas, named or already selected', () => {
    const ipc = (name: string, zeroReplicas?: boolean): InferenceProviderConfig => ({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'InferenceProviderConfig',
      metadata: { name },
      spec: { capabilities: { engines: [], ...(zeroReplicas ? { zeroReplicas } : {}) } },
    });
    const providers = [ipc('kaito'), ipc('llmd', true), ipc('dynamo', true)];
    const zero = { ...VALID_GPU, scaling: { replicas: 0 } };
    const named = validate({ ...zero, provider: { name: 'kaito' } }, { providers });
    assert.deepEqual(named.errors, [
      {
        field: 'spec.scaling.replicas',
        message:
          "spec.scaling.replicas: 0 is not supported by provider 'kaito' (it always runs at least one serving pod): set replicas to 1 or more, or use a provider that runs 0 replicas (dynamo, llmd)",
      },
    ]);
    // selected earlier (status), the edit to 0 is refused the same way
    const selected = validateModelDeployment(
      { metadata: { name: 'm' }, spec: zero, status: { provider: { name: 'kaito' } } },
      { spec: VALID_GPU, status: { provider: { name: 'kaito' } } },
      { providers },
    );
    assert.equal(selected.errors[0]?.field, 'spec.scaling.replicas');
    assert.deepEqual(validate({ ...zero, provider: { name: 'llmd' } }, { providers }).errors, []);
    assert.deepEqual(validate(zero, { providers }).errors, [], 'not selected yet: selection skips kaito');
  });

  it("Provider '{name}' CRD not installed in cluster", () => {
    const ipc = (name: string, requiresCRD?: boolean): InferenceProviderConfig => ({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'InferenceProviderConfig',
      metadata: { name },
      spec: { capabilities: { engines: [], ...(requiresCRD === undefined ? {} : { requiresCRD }) } },
    });
    const withProvider = (name: string) => ({ ...VALID_GPU, provider: { name } });
    const providers = [ipc('dynamo'), ipc('kaito'), ipc('direct', false)];
    const installed = (name: string) => name !== 'kaito';
    assert.deepEqual(
      validate(withProvider('llmd'), { providers }).errors,
      [
        {
          field: 'spec.provider.name',
          message:
            "spec.provider.name: no provider 'llmd' is registered (no InferenceProviderConfig named llmd; registered providers: direct, dynamo, kaito): name a registered provider, or start the 'llmd' provider controller",
        },
      ],
      'not registered: its own message, not a missing CRD',
    );
    assert.match(
      validate(withProvider('llmd'), { providers: [] }).errors[0]!.message,
      /no provider 'llmd' is registered \(no InferenceProviderConfig named llmd; none is registered\)/,
    );
    assert.deepEqual(
      validate(withProvider('kaito'), { providers, providerCrdInstalled: installed }).errors,
      [
        {
          field: 'spec.provider.name',
          message:
            "Provider 'kaito' CRD not installed in cluster: provider 'kaito' has not reported the API it builds (status.upstreamCRDVersion of InferenceProviderConfig kaito); start its provider controller",
        },
      ],
      'registered, upstream CRD missing, the provider never said which',
    );
    // the message names the missing kind the provider reported (per kind, not per group/version)
    const reported = providers.map((p) =>
      p.metadata.name === 'kaito'
        ? { ...p, status: { upstreamCRDVersion: 'kaito.sh/v1beta1', upstreamKind: 'Workspace' } }
        : p,
    );
    assert.deepEqual(validate(withProvider('kaito'), { providers: reported, providerCrdInstalled: installed }).errors, [
      {
        field: 'spec.provider.name',
        message:
          "Provider 'kaito' CRD not installed in cluster: kind Workspace of kaito.sh/v1beta1 is not served; install the CRD of the provider's operator (the deployment proceeds once it is served)",
      },
    ]);
    assert.deepEqual(validate(withProvider('dynamo'), { providers, providerCrdInstalled: installed }).errors, []);
    assert.deepEqual(
      validate(withProvider('direct'), { providers, providerCrdInstalled: () => false }).errors,
      [],
      'requiresCRD: false',
    );
    assert.deepEqual(
      validate(withProvider('llmd')).errors,
      [],
      'without cluster knowledge the check is skipped (the controller re-checks)',
    );
    assert.deepEqual(validate(VALID_GPU, { providers: [] }).errors, [], 'auto-selection needs no named provider');
  });
});

describe('checks where docs/kubeairunway.md is silent (upstream webhook behaviour)', () => {
  const cases: Array<[string, Spec, string, string, string?]> = [
    [
      'gpu count over 64',
      { ...VALID_GPU, resources: { gpu: { count: 65 } } },
      'spec.resources.gpu.count',
      'spec.resources.gpu.count 65 exceeds maximum allowed (64)',
    ],
    [
      'replicas over 32',
      { ...VALID_GPU, scaling: { replicas: 33 } },
      'spec.scaling.replicas',
      'spec.scaling.replicas 33 exceeds maximum allowed (32)',
    ],
    [
      'prefill replicas over 32',
      { ...DISAGG, scaling: { prefill: { replicas: 40, gpu: { count: 1 } }, decode: { gpu: { count: 1 } } } },
      'spec.scaling.prefill.replicas',
      'spec.scaling.prefill.replicas 40 exceeds maximum allowed (32)',
    ],
    [
      'decode gpu over 64',
      { ...DISAGG, scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 99 } } } },
      'spec.scaling.decode.gpu.count',
      'spec.scaling.decode.gpu.count 99 exceeds maximum allowed (64)',
    ],
    [
      'cpu over 512',
      { ...VALID_GPU, resources: { gpu: { count: 1 }, cpu: '513' } },
      'spec.resources.cpu',
      'spec.resources.cpu 513 exceeds maximum allowed (512)',
    ],
    [
      'memory over 4Ti',
      { ...VALID_GPU, resources: { gpu: { count: 1 }, memory: '5Ti' } },
      'spec.resources.memory',
      'spec.resources.memory 5Ti exceeds maximum allowed (4Ti)',
    ],
    [
      'invalid memory quantity',
      { ...VALID_GPU, resources: { gpu: { count: 1 }, memory: '16 GB' } },
      'spec.resources.memory',
      'spec.resources.memory: invalid resource quantity "16 GB" (use a Kubernetes quantity such as "4", "500m" or "16Gi")',
    ],
    [
      'negative cpu quantity',
      { ...VALID_GPU, resources: { gpu: { count: 1 }, cpu: '-1' } },
      'spec.resources.cpu',
      'spec.resources.cpu: invalid resource quantity "-1" (use a Kubernetes quantity such as "4", "500m" or "16Gi")',
    ],
    [
      'invalid decode memory',
      { ...DISAGG, scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 }, memory: 'lots' } } },
      'spec.scaling.decode.memory',
      'spec.scaling.decode.memory: invalid resource quantity "lots" (use a Kubernetes quantity such as "4", "500m" or "16Gi")',
    ],
    [
      'conflicting images',
      { ...VALID_GPU, image: 'a:1', engine: { type: 'vllm', image: 'b:1' } },
      'spec.engine.image',
      'spec.image and spec.engine.image are both set to different images: set only spec.engine.image',
    ],
    [
      'a flag in both args and extraArgs',
      { ...VALID_GPU, engine: { type: 'vllm', args: { 'max-num-seqs': '8' }, extraArgs: ['--max-num-seqs=16'] } },
      'spec.engine.args.max-num-seqs',
      'engine.args key "max-num-seqs" is also passed in engine.extraArgs: set it in one place only',
    ],
    [
      'an args key with leading dashes',
      { ...VALID_GPU, engine: { type: 'vllm', args: { '--model': 'x' } } },
      'spec.engine.args.--model',
      'engine.args key "--model" is invalid: use letters, digits, "_" and "-" without leading dashes (it is rendered as --model)',
    ],
    [
      'an args key with a space',
      { ...VALID_GPU, engine: { type: 'vllm', args: { 'a b': '' } } },
      'spec.engine.args.a b',
      'engine.args key "a b" is invalid: use letters, digits, "_" and "-" without leading dashes (it is rendered as --a b)',
    ],
    [
      'a secret reference that is not a name',
      { ...VALID_GPU, secrets: { huggingFaceToken: 'hf_abcDEF123' } },
      'spec.secrets.huggingFaceToken',
      'secrets.huggingFaceToken must be the name of a Secret in the same namespace (a DNS subdomain), got "hf_abcDEF123"',
    ],
    [
      'an invalid pod label value',
      { ...VALID_GPU, podTemplate: { metadata: { labels: { team: 'ml team' } } } },
      'spec.podTemplate.metadata.labels.team',
      'spec.podTemplate.metadata.labels.team: invalid label value "ml team" (at most 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric)',
    ],
    [
      'an invalid nodeSelector key',
      { ...VALID_GPU, nodeSelector: { 'bad key/x': 'y' } },
      'spec.nodeSelector',
      'spec.nodeSelector: invalid label key "bad key/x"',
    ],
  ];
  for (const [name, spec, field, message] of cases) {
    it(name, () => assert.deepEqual(validate(spec).errors, [{ field, message }]));
  }

  it('rejects dots in metadata.name on create only', () => {
    const dotted = defaultModelDeployment(md(VALID_GPU, 'llama.3'));
    assert.deepEqual(validateModelDeployment(dotted).errors, [
      {
        field: 'metadata.name',
        message: 'metadata.name must not contain dots: it names the provider resource and its Service (use dashes)',
      },
    ]);
    assert.deepEqual(validateModelDeployment(dotted, dotted).errors, []);
  });

  it('accepts the bounds themselves and numeric quantities', () => {
    const spec: Spec = {
      ...VALID_GPU,
      resources: { gpu: { count: 64 }, cpu: 512, memory: '4Ti' },
      scaling: { replicas: 32 },
    };
    assert.deepEqual(validate(spec).errors, []);
    assert.deepEqual(
      validate({
        ...VALID_GPU,
        engine: {
          type: 'vllm',
          args: { 'max-num-seqs': '8', enable_chunked_prefill: '' },
          extraArgs: ['--enforce-eager'],
        },
      }).errors,
      [],
    );
  });
});

describe('warnings (never block)', () => {
  const cases: Array<[string, Spec, string]> = [
    [
      'servedName with a custom model',
      {
        model: { source: 'custom', servedName: 'x' },
        engine: { type: 'llamacpp' },
        image: 'runner',
        resources: { cpu: '2' },
      },
      'model.servedName is ignored when model.source is custom (the image decides the served name)',
    ],
    [
      'trustRemoteCode',
      { ...VALID_GPU, engine: { type: 'vllm', trustRemoteCode: true } },
      'engine.trustRemoteCode is true: the model repository may run arbitrary code inside the serving pod',
    ],
    [
      'contextLength with trtllm',
      { ...VALID_GPU, engine: { type: 'trtllm', contextLength: 8192 } },
      'engine.contextLength is ignored by the trtllm engine (it is fixed when the engine is built)',
    ],
  ];
  for (const [name, spec, warning] of cases) {
    it(name, () => assert.deepEqual(validate(spec), { errors: [], warnings: [warning] }));
  }

  it('a Gateway model name the vLLM engine does not serve: its requests would be answered 404', () => {
    assert.deepEqual(validate({ ...VALID_GPU, gateway: { modelName: 'shared-x' } }), {
      errors: [],
      warnings: [
        'spec.gateway.modelName: requests for "shared-x" are routed to this deployment, but its engine serves "meta-llama/Llama-3.1-8B-Instruct" (spec.model.servedName, else spec.model.id) and answers any other model name 404 (model does not exist): set spec.model.servedName to "shared-x", or leave spec.gateway.modelName unset',
      ],
    });
    // served under that name, routing off, or an engine that answers any name: nothing to say
    const quiet: Spec[] = [
      { ...VALID_GPU, model: { ...VALID_GPU.model, servedName: 'shared-x' }, gateway: { modelName: 'shared-x' } },
      { ...VALID_GPU, gateway: { modelName: VALID_GPU.model.id } },
      { ...VALID_GPU, gateway: { enabled: false, modelName: 'shared-x' } },
      {
        model: { id: 'g' },
        engine: { type: 'llamacpp' },
        image: 'runner',
        resources: { cpu: '2' },
        gateway: { modelName: 'x' },
      },
    ];
    for (const spec of quiet) assert.deepEqual(validate(spec).warnings, [], JSON.stringify(spec));
  });

  it('warns on an identity-field update (the resource is recreated) but not on a config-field update', () => {
    const old = defaultModelDeployment(md(VALID_GPU));
    const renamed = defaultModelDeployment(md({ ...VALID_GPU, model: { id: 'Qwen/Qwen2.5-7B' } }));
    assert.deepEqual(validateModelDeployment(renamed, old), {
      errors: [],
      warnings: [
        'spec.model.id changed from "meta-llama/Llama-3.1-8B-Instruct" to "Qwen/Qwen2.5-7B": the provider resource will be deleted and recreated (brief downtime)',
      ],
    });
    const scaled = defaultModelDeployment(
      md({ ...VALID_GPU, scaling: { replicas: 3 }, env: [{ name: 'A', value: 'b' }] }),
    );
    assert.deepEqual(validateModelDeployment(scaled, old), { errors: [], warnings: [] });
  });
});

describe('names whose children would exceed 63 characters are refused, naming the limit', () => {
  it('uses the named provider, or every provider while none is chosen, and the download Job of managed storage', () => {
    const name = (n: number) => 'm'.repeat(n);
    const byName = (spec: Spec, n: number) =>
      validateModelDeployment(defaultModelDeployment(md(spec, name(n))), undefined).errors.filter(
        (e) => e.field === 'metadata.name',
      );
    const kuberay = { ...VALID_GPU, provider: { name: 'kuberay' } };
    assert.deepEqual(byName(kuberay, 53), [], '53 + "-serve-svc" = 63');
    const [e] = byName(kuberay, 54);
    assert.equal(
      e!.message,
      `metadata.name "${name(54)}" is 54 characters, more than the 53 allowed: KubeRay's Serve Service is named "${name(54)}-serve-svc" (63 + 1 characters)`.replace(
        '(63 + 1 characters)',
        '(64 characters)',
      ) + ', and such names are DNS labels of at most 63 characters; choose a name of at most 53 characters',
    );
    // aggregated (the default): Dynamo's longest child is its worker Service; no prefill worker exists
    assert.deepEqual(
      byName(VALID_GPU, 52),
      [],
      "auto-selection: the longest child of any provider (Dynamo's worker) fits",
    );
    assert.match(
      byName(VALID_GPU, 53)[0]!.message,
      /Dynamo's worker Service is named ".*-vllmworker" \(64 characters\).*at most 52 characters$/,
    );
    // named Dynamo, aggregated: refused citing the worker it creates, never a prefill worker it does not
    const dynamo = { ...VALID_GPU, provider: { name: 'dynamo' } };
    assert.deepEqual(byName(dynamo, 52), []);
    assert.deepEqual(
      byName(dynamo, 53).map((e) => e.message),
      [
        `metadata.name "${name(53)}" is 53 characters, more than the 52 allowed: Dynamo's worker Service is named "${name(53)}-vllmworker" (64 characters), and such names are DNS labels of at most 63 characters; choose a name of at most 52 characters`,
      ],
    );
    const disaggregated = {
      model: { id: 'm' },
      engine: { type: 'vllm' as const },
      serving: { mode: 'disaggregated' as const },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
    };
    assert.deepEqual(byName(disaggregated, 45), []);
    assert.match(
      byName(disaggregated, 46)[0]!.message,
      /Dynamo's prefill worker Service is named ".*-vllmprefillworker" \(64 characters\).*at most 45 characters$/,
    );
    assert.deepEqual(
      byName({ ...VALID_GPU, provider: { name: 'someone-elses' } }, 63),
      [],
      'an unknown provider: the DNS label limit only',
    );
    const storage = {
      ...VALID_GPU,
      provider: { name: 'kaito' },
      model: { id: 'm', storage: { volumes: [{ name: 'cache', size: '100Gi', purpose: 'modelCache' as const }] } },
    };
    assert.match(
      byName(storage, 49)[0]!.message,
      /the model download Job is named ".*-model-download" \(64 characters\)/,
    );
    assert.deepEqual(
      validateModelDeployment(defaultModelDeployment(md(kuberay, name(60))), md(kuberay, name(60))).errors,
      [],
      'names cannot change: checked on create only',
    );
  });
});

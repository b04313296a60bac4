// The KubeRay provider, pure: ModelDeployment → RayService (Ray Serve LLM config, head and worker groups),
// docs/kubeairunway.md's head overrides, and RayService status → unified phase for every row of docs/kubeairunway.md's table plus
// the Ready-condition and application-status forms of newer KubeRay releases.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import {
  argvToKwargs,
  kuberayProvider,
  type RayService,
  translateKubeRayOverrides,
} from '../../../src/controllers/kubeairunway/providers/kuberay/index.ts';
import { deploymentsIn, pathsOf, statusRows, transformCases, withStatus } from './provider-test-kit.ts';

const md = deploymentsIn('team-a', 'llm');

const AGG: ModelDeploymentSpec = {
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 2 }, memory: '64Gi' },
};
const DISAGG: ModelDeploymentSpec = {
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 1, gpu: { count: 2 } }, decode: { replicas: 3, gpu: { count: 1 }, memory: '48Gi' } },
};

const serveConfig = (rs: RayService) =>
  parseYaml(rs.spec.serveConfigV2!) as { applications: Array<Record<string, any>> };
const head = (rs: RayService) => rs.spec.rayClusterConfig!.headGroupSpec;
const workers = (rs: RayService) => rs.spec.rayClusterConfig!.workerGroupSpecs!;

describe('kuberay transform', () => {
  it('aggregated: a Ray Serve LLM app, a fixed head and one GPU worker group, named like the deployment', () => {
    const rs = kuberayProvider.transform(md(AGG, 'llama'));
    assert.deepEqual(
      [rs.apiVersion, rs.kind, rs.metadata.name, rs.metadata.namespace],
      ['ray.io/v1', 'RayService', 'llama', 'team-a'],
    );
    assert.equal(rs.metadata.labels?.['kubeairunway.ai/model-id'], 'meta-llama_Llama-3.1-8B-Instruct');
    assert.deepEqual(serveConfig(rs), {
      applications: [
        {
          name: 'llm',
          route_prefix: '/',
          import_path: 'ray.serve.llm:build_openai_app',
          args: {
            llm_configs: [
              {
                model_loading_config: {
                  model_id: 'meta-llama/Llama-3.1-8B-Instruct',
                  model_source: 'meta-llama/Llama-3.1-8B-Instruct',
                },
                deployment_config: { num_replicas: 1 },
                engine_kwargs: { enable_prefix_caching: true, tensor_parallel_size: 2 },
              },
            ],
          },
        },
      ],
    });
    assert.deepEqual(head(rs).rayStartParams, { 'dashboard-host': '0.0.0.0' });
    const h = head(rs).template.spec.containers[0]!;
    assert.equal(h.name, 'ray-head');
    assert.equal(h.image, 'rayproject/ray-llm:2.55.0-py311-cu128');
    assert.deepEqual(h.resources, { requests: { cpu: '4', memory: '16Gi' }, limits: { cpu: '4', memory: '16Gi' } });
    assert.deepEqual(
      (h.ports as Array<{ containerPort: number }>).map((p) => p.containerPort),
      [6379, 8265, 10001, 8000],
    );
    assert.equal(workers(rs).length, 1);
    const w = workers(rs)[0]!;
    assert.deepEqual([w.groupName, w.replicas, w.minReplicas, w.maxReplicas], ['gpu-workers', 1, 1, 1]);
    assert.deepEqual(w.rayStartParams, { 'num-gpus': '2' });
    assert.deepEqual(w.template.spec.containers[0]!.resources, {
      requests: { memory: '64Gi', 'nvidia.com/gpu': '2' },
      limits: { memory: '64Gi', 'nvidia.com/gpu': '2' },
    });
  });

  const cases: Array<{ name: string; spec: ModelDeploymentSpec; check: (rs: RayService) => void }> = [
    {
      name: 'disaggregated: build_pd_openai_app with prefill and decode configs, one worker group each',
      spec: DISAGG,
      check: (rs) => {
        const app = serveConfig(rs).applications[0]!;
        assert.equal(app.import_path, 'ray.serve.llm:build_pd_openai_app');
        assert.deepEqual(app.args.prefill_config.deployment_config, { num_replicas: 1 });
        assert.deepEqual(app.args.prefill_config.engine_kwargs, {
          enable_prefix_caching: true,
          tensor_parallel_size: 2,
          kv_transfer_config: { kv_connector: 'NixlConnector', kv_role: 'kv_both' },
        });
        assert.deepEqual(app.args.decode_config.deployment_config, { num_replicas: 3 });
        assert.deepEqual(app.args.decode_config.engine_kwargs, {
          enable_prefix_caching: true,
          kv_transfer_config: { kv_connector: 'NixlConnector', kv_role: 'kv_both' },
        });
        assert.deepEqual(
          workers(rs).map((w) => [w.groupName, w.replicas, w.rayStartParams, w.template.spec.containers[0]!.resources]),
          [
            [
              'prefill-workers',
              1,
              { 'num-gpus': '2' },
              {
                requests: { memory: '32Gi', 'nvidia.com/gpu': '2' },
                limits: { memory: '32Gi', 'nvidia.com/gpu': '2' },
              },
            ],
            [
              'decode-workers',
              3,
              { 'num-gpus': '1' },
              {
                requests: { memory: '48Gi', 'nvidia.com/gpu': '1' },
                limits: { memory: '48Gi', 'nvidia.com/gpu': '1' },
              },
            ],
          ],
        );
      },
    },
    {
      name: 'engine settings and args become typed engine kwargs; servedName names the model',
      spec: {
        ...AGG,
        model: { id: 'meta-llama/Llama-3.1-8B-Instruct', servedName: 'llama' },
        engine: {
          type: 'vllm',
          contextLength: 8192,
          enablePrefixCaching: false,
          trustRemoteCode: true,
          args: { 'gpu-memory-utilization': '0.85', 'enable-chunked-prefill': '' },
          extraArgs: ['--max-num-seqs=64', '--seed', '-1'],
        },
        scaling: { replicas: 2 },
      },
      check: (rs) => {
        const cfg = serveConfig(rs).applications[0]!.args.llm_configs[0];
        assert.deepEqual(cfg.model_loading_config, {
          model_id: 'llama',
          model_source: 'meta-llama/Llama-3.1-8B-Instruct',
        });
        assert.deepEqual(cfg.deployment_config, { num_replicas: 2 });
        assert.deepEqual(cfg.engine_kwargs, {
          max_model_len: 8192,
          trust_remote_code: true,
          enable_prefix_caching: false,
          tensor_parallel_size: 2,
          enable_chunked_prefill: true,
          gpu_memory_utilization: 0.85,
          max_num_seqs: 64,
          seed: -1,
        });
        assert.equal(workers(rs)[0]!.replicas, 2);
      },
    },
    {
      name: 'the GPU type is the worker container’s resource key',
      spec: { ...AGG, resources: { gpu: { count: 1, type: 'amd.com/gpu' }, cpu: '8' } },
      check: (rs) =>
        assert.deepEqual(workers(rs)[0]!.template.spec.containers[0]!.resources, {
          requests: { memory: '32Gi', cpu: '8', 'amd.com/gpu': '1' },
          limits: { memory: '32Gi', cpu: '8', 'amd.com/gpu': '1' },
        }),
    },
    {
      name: 'nodeSelector, tolerations and podTemplate metadata on the head and every worker template',
      spec: {
        ...DISAGG,
        nodeSelector: { pool: 'gpu' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        podTemplate: { metadata: { labels: { team: 'a' }, annotations: { note: 'x' } } },
      },
      check: (rs) => {
        for (const t of [head(rs).template, ...workers(rs).map((w) => w.template)]) {
          assert.deepEqual(t.metadata, {
            labels: { team: 'a', 'kubeairunway.ai/model-deployment': 'llm' },
            annotations: { note: 'x' },
          });
          assert.deepEqual(t.spec.nodeSelector, { pool: 'gpu' });
          assert.deepEqual(t.spec.tolerations, [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
        }
      },
    },
    {
      name: 'an engine image runs head and workers',
      spec: { ...AGG, engine: { type: 'vllm', image: 'me/ray-llm:1' } },
      check: (rs) => {
        assert.equal(head(rs).template.spec.containers[0]!.image, 'me/ray-llm:1');
        assert.equal(workers(rs)[0]!.template.spec.containers[0]!.image, 'me/ray-llm:1');
      },
    },
  ];
  transformCases(cases, md, (input) => kuberayProvider.transform(input));

  it('passes the token and env secrets by reference to every Ray node', () => {
    const rs = kuberayProvider.transform(
      md({ ...DISAGG, secrets: { huggingFaceToken: 'hf-secret' }, env: [{ name: 'A', value: '1' }] }),
    );
    const expected = [
      { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-secret', key: 'HF_TOKEN' } } },
      { name: 'A', value: '1' },
    ];
    for (const t of [head(rs).template, ...workers(rs).map((w) => w.template)])
      assert.deepEqual(t.spec.containers[0]!.env, expected);
    for (const p of pathsOf(rs, 'hf-secret')) assert.match(p, /\.env\[0\]\.valueFrom\.secretKeyRef\.name$/);
    assert.equal(pathsOf(rs, 'hf-secret').length, 3);
    assert.doesNotMatch(JSON.stringify(rs), /"(data|stringData)"/);
  });

  for (const [name, spec, message] of [
    [
      'sglang',
      { ...AGG, engine: { type: 'sglang' } },
      /^spec\.engine\.type: KubeRay serves vllm through Ray Serve LLM, got sglang$/,
    ],
    ['no model id', { ...AGG, model: { source: 'custom' } }, /^spec\.model\.id: /],
    [
      'a positional extra arg',
      { ...AGG, engine: { type: 'vllm', extraArgs: ['model.gguf'] } },
      /^spec\.engine\.extraArgs: "model\.gguf" is not a --flag/,
    ],
  ] as const) {
    it(`refuses ${name}`, () =>
      assert.throws(() => kuberayProvider.transform(md(spec as ModelDeploymentSpec)), { message }));
  }

  it('argvToKwargs types values', () => {
    assert.deepEqual(
      argvToKwargs(['--a-b', '1', '--c=x', '--d', '--no-e', '--f', '{"k":1}', '--g', 'false', '--h', '1e-3']),
      { a_b: 1, c: 'x', d: true, e: false, f: { k: 1 }, g: false, h: 0.001 },
    );
  });
});

describe('kuberay overrides (docs/kubeairunway.md: head.resources, head.rayStartParams)', () => {
  const withOverrides = (overrides: Record<string, unknown>) =>
    md({ ...AGG, secrets: { huggingFaceToken: 'hf' }, provider: { name: 'kuberay', overrides } });

  it('head.resources: the whole head container, resized', () => {
    const m = withOverrides({ head: { resources: { cpu: '8', memory: '32Gi' } } });
    const patch = translateKubeRayOverrides(m) as any;
    const containers = patch.spec.rayClusterConfig.headGroupSpec.template.spec.containers;
    const base = head(kuberayProvider.transform(m)).template.spec.containers[0]!;
    assert.deepEqual(containers, [
      { ...base, resources: { requests: { cpu: '8', memory: '32Gi' }, limits: { cpu: '8', memory: '32Gi' } } },
    ]);
    assert.deepEqual(kuberayProvider.overridePatch(m), patch);
  });

  it('head.resources with only cpu keeps the default memory', () => {
    const patch = translateKubeRayOverrides(withOverrides({ head: { resources: { cpu: 2 } } })) as any;
    assert.deepEqual(patch.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].resources.limits, {
      cpu: '2',
      memory: '16Gi',
    });
  });

  it('head.rayStartParams merge into the start parameters', () => {
    assert.deepEqual(
      translateKubeRayOverrides(
        withOverrides({ head: { rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' } } }),
      ),
      {
        spec: {
          rayClusterConfig: { headGroupSpec: { rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' } } },
        },
      },
    );
  });

  it('no overrides: no patch', () => {
    assert.deepEqual(translateKubeRayOverrides(md(AGG)), {});
    assert.deepEqual(translateKubeRayOverrides(withOverrides({ other: 1 })), {});
  });

  for (const [overrides, message] of [
    [{ head: 'big' }, /^spec\.provider\.overrides\.head: must be an object$/],
    [
      { head: { rayStartParams: { 'num-cpus': 0 } } },
      /^spec\.provider\.overrides\.head\.rayStartParams\.num-cpus: must be a string$/,
    ],
    [{ head: { resources: { memory: '' } } }, /^spec\.provider\.overrides\.head\.resources\.memory: /],
  ] as const) {
    it(`refuses ${JSON.stringify(overrides)}`, () =>
      assert.throws(() => translateKubeRayOverrides(withOverrides(overrides)), { message }));
  }
});

describe('kuberay mapStatus', () => {
  const rs = (status: RayService['status'], generation = 1) =>
    withStatus(kuberayProvider.transform(md(DISAGG)), status, generation);
  const apps = (
    status: string,
    message = '',
    deployments: Record<string, { status: string; message?: string }> = {},
  ) => ({ llm: { status, message, serveDeploymentStatuses: deployments } });
  const rows: Array<{ name: string; rs: RayService; phase: string; message?: string }> = [
    {
      name: 'status mapping (docs/kubeairunway.md): serviceStatus Running → Running',
      rs: rs({ serviceStatus: 'Running' }),
      phase: 'Running',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): serviceStatus Pending → Pending',
      rs: rs({ serviceStatus: 'Pending' }),
      phase: 'Pending',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): serviceStatus Failed → Failed with the application’s message',
      rs: rs({
        serviceStatus: 'Failed',
        pendingServiceStatus: {
          applicationStatuses: apps('DEPLOY_FAILED', 'Deploying the applications failed: ImagePullBackOff'),
        },
      }),
      phase: 'Failed',
      message: 'llm: Deploying the applications failed: ImagePullBackOff',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): serviceStatus Failed → Failed with the failed Serve deployment’s message',
      rs: rs({
        serviceStatus: 'Failed',
        activeServiceStatus: {
          applicationStatuses: apps('UNHEALTHY', '', {
            LLMServer: { status: 'UNHEALTHY', message: 'replica died: CUDA OOM' },
          }),
        },
      }),
      phase: 'Failed',
      message: 'llm/LLMServer: replica died: CUDA OOM',
    },
    {
      name: 'serviceStatus Failed with no Serve statuses → the Ready condition’s message',
      rs: rs({
        serviceStatus: 'Failed',
        conditions: [
          { type: 'Ready', status: 'False', reason: 'RayServiceValidationFailed', message: 'invalid RayService spec' },
        ],
      }),
      phase: 'Failed',
      message: 'invalid RayService spec',
    },
    {
      name: 'no serviceStatus: Ready True → Running',
      rs: rs({ conditions: [{ type: 'Ready', status: 'True', reason: 'NonZeroServeEndpoints' }] }),
      phase: 'Running',
    },
    {
      name: 'no serviceStatus: RayServiceReady False → Deploying with its message',
      rs: rs({
        conditions: [
          {
            type: 'RayServiceReady',
            status: 'False',
            reason: 'Initializing',
            message: 'waiting for RayCluster llm-raycluster-x',
          },
        ],
      }),
      phase: 'Deploying',
      message: 'waiting for RayCluster llm-raycluster-x',
    },
    {
      name: 'no serviceStatus: an application DEPLOY_FAILED → Failed',
      rs: rs({
        conditions: [{ type: 'Ready', status: 'False', reason: 'x', message: 'not ready' }],
        activeServiceStatus: { applicationStatuses: apps('DEPLOY_FAILED', 'ModuleNotFoundError: vllm_serve') },
      }),
      phase: 'Failed',
      message: 'llm: ModuleNotFoundError: vllm_serve',
    },
    {
      name: 'no serviceStatus: every application RUNNING → Running',
      rs: rs({ activeServiceStatus: { applicationStatuses: apps('RUNNING') } }),
      phase: 'Running',
    },
    {
      name: 'no serviceStatus: an application DEPLOYING → Deploying',
      rs: rs({ activeServiceStatus: { applicationStatuses: apps('DEPLOYING') } }),
      phase: 'Deploying',
    },
    { name: 'empty status → Pending', rs: rs({}), phase: 'Pending' },
    { name: 'no status → Pending', rs: rs(undefined), phase: 'Pending' },
    {
      name: 'a status for an older generation → Deploying',
      rs: rs({ serviceStatus: 'Running', observedGeneration: 1 }, 2),
      phase: 'Deploying',
      message: 'waiting for the KubeRay operator to observe generation 2 (it reports 1)',
    },
  ];
  statusRows(
    rows,
    (r) => kuberayProvider.mapStatus(r.rs, md(DISAGG)),
    (s) => assert.deepEqual(s.endpoint, { service: 'llm-serve-svc', port: 8000 }),
  );

  it('replicas: desired from the worker groups, ready from the active cluster when it reports them', () => {
    assert.deepEqual(kuberayProvider.mapStatus(rs({ serviceStatus: 'Running' }), md(DISAGG)).replicas, {
      desired: 4,
      ready: 4,
      available: 4,
    });
    assert.deepEqual(kuberayProvider.mapStatus(rs({ serviceStatus: 'Pending' }), md(DISAGG)).replicas, {
      desired: 4,
      ready: 0,
      available: 0,
    });
    const partial = rs({
      serviceStatus: 'Running',
      activeServiceStatus: { rayClusterStatus: { readyWorkerReplicas: 3, availableWorkerReplicas: 2 } },
    });
    assert.deepEqual(kuberayProvider.mapStatus(partial, md(DISAGG)).replicas, { desired: 4, ready: 3, available: 2 });
  });
});

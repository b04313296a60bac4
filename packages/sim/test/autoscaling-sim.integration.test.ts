// The pieces `modelplane dev` closes the autoscaling loop with: which pods get an inference simulator,
// the HPA's replica arithmetic, the generated Prometheus configuration, the HTTP pod discovery's labels,
// and the load generator spreading over its endpoints.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { runLoad, servedModel, startInferenceServer } from '../src/inference/index.ts';
import { type Recommendations, replicasFor, stabilized } from '../src/operators/hpa.ts';
import { podTargetGroups } from '../src/pod-discovery.ts';
import { prometheusConfig } from '../src/prometheus.ts';

const pod = (containers: unknown[], annotations: Record<string, string> = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', annotations },
    spec: { containers },
  }) as never;

describe('servedModel: which pods are vLLM servers', () => {
  const cases: Array<[string, unknown[], Record<string, string>, unknown]> = [
    [
      'vllm image with --model and a port',
      [{ name: 'c', image: 'vllm/vllm-openai:v0.10.1', args: ['--model', 'm1', '--port', '9000'] }],
      {},
      { model: 'm1', port: 9000, capacity: {} },
    ],
    [
      '--served-model-name wins over --model',
      [{ name: 'c', image: 'vllm/vllm-openai', args: ['--model=/models/x', '--served-model-name=x'] }],
      {},
      { model: 'x', port: 8000, capacity: {} },
    ],
    [
      '`vllm serve <model>` in the command, container port',
      [{ name: 'c', image: 'custom', command: ['vllm', 'serve', 'qwen'], ports: [{ containerPort: 8080 }] }],
      {},
      { model: 'qwen', port: 8080, capacity: {} },
    ],
    [
      'annotated pod, model from the annotation, capacity JSON',
      [{ name: 'c', image: 'runner' }],
      {
        'sim.modelplane.io/inference': 'true',
        'sim.modelplane.io/model': 'm',
        'sim.modelplane.io/inference-capacity': '{"maxNumSeqs": 2, "bad": "x"}',
      },
      { model: 'm', port: 8000, capacity: { maxNumSeqs: 2 } },
    ],
    ['not a vLLM pod', [{ name: 'web', image: 'nginx' }], {}, undefined],
    ['vLLM without a model name', [{ name: 'c', image: 'vllm/vllm-openai' }], {}, undefined],
  ];
  for (const [name, containers, ann, expected] of cases)
    it(name, () => assert.deepEqual(servedModel(pod(containers, ann)), expected));
});

describe('replicasFor: the HPA arithmetic', () => {
  const cases: Array<
    [
      string,
      { type: 'Value' | 'AverageValue'; value?: string; averageValue?: string },
      number,
      number,
      number | undefined,
    ]
  > = [
    ['AverageValue 1 follows the metric exactly (up)', { type: 'AverageValue', averageValue: '1' }, 3, 1, 3],
    ['AverageValue 1 follows the metric exactly (down)', { type: 'AverageValue', averageValue: '1' }, 1, 4, 1],
    ['within the 10% tolerance: no change', { type: 'AverageValue', averageValue: '1' }, 2.1, 2, 2],
    ['Value scales the current count by the ratio', { type: 'Value', value: '2' }, 6, 2, 6],
    ['no target value: no recommendation', { type: 'Value' }, 6, 2, undefined],
  ];
  for (const [name, target, value, current, expected] of cases)
    it(name, () => assert.equal(replicasFor(target, value, current), expected));
});

describe('stabilized: the HPA scale-down stabilization window', () => {
  const hpa = { spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } };
  it('scales up at once, and down only to the highest recommendation within the window', () => {
    const recs: Recommendations = new Map();
    const t0 = 1_000_000;
    assert.equal(stabilized(hpa, recs, 'ns/a', t0, 5, 2), 5, 'a scale-up is not held back');
    assert.equal(stabilized(hpa, recs, 'ns/a', t0 + 10_000, 2, 5), 5, 'the 5 of 10 s ago holds the scale-down');
    assert.equal(stabilized(hpa, recs, 'ns/a', t0 + 30_000, 3, 5), 5);
    // past the window the 5 is forgotten: the highest within it (3, then 2) is where it goes
    assert.equal(stabilized(hpa, recs, 'ns/a', t0 + 65_000, 2, 5), 3);
    assert.equal(stabilized(hpa, recs, 'ns/a', t0 + 95_000, 2, 3), 2);
    assert.deepEqual(recs.get('ns/b'), undefined, 'recommendations are kept per HPA');
  });
  it('keeps 300 s when the HPA names no window', () => {
    const recs: Recommendations = new Map();
    assert.equal(stabilized({}, recs, 'ns/a', 0, 4, 1), 4);
    assert.equal(stabilized({}, recs, 'ns/a', 299_000, 1, 4), 4);
    assert.equal(stabilized({}, recs, 'ns/a', 301_000, 1, 4), 1);
  });
});

describe('Prometheus configuration and pod discovery', () => {
  it('discovers pods with Kubernetes service discovery, or over HTTP, with the same relabelling', () => {
    const k8s = parse(
      prometheusConfig({ kubeconfigFile: '/k', staticTargets: [{ job: 'op', target: '127.0.0.1:8080' }] }),
    );
    assert.deepEqual(k8s.scrape_configs[0].kubernetes_sd_configs, [{ role: 'pod', kubeconfig_file: '/k' }]);
    assert.deepEqual(k8s.scrape_configs[1], {
      job_name: 'op',
      honor_labels: true,
      static_configs: [{ targets: ['127.0.0.1:8080'] }],
    });
    const httpSd = parse(prometheusConfig({ kubeconfigFile: '/k', httpDiscovery: 'http://127.0.0.1:1/' }));
    assert.equal(httpSd.scrape_configs[0].http_sd_configs[0].url, 'http://127.0.0.1:1/');
    // Kubernetes discovery watches: its HTTP stand-in polls well under the scrape interval
    assert.equal(httpSd.scrape_configs[0].http_sd_configs[0].refresh_interval, '250ms');
    assert.equal(httpSd.global.scrape_interval, '2s');
    assert.deepEqual(httpSd.scrape_configs[0].relabel_configs, k8s.scrape_configs[0].relabel_configs);
  });

  it('gives one target per container port with the Kubernetes meta labels', () => {
    const groups = podTargetGroups([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p1',
          namespace: 'ns',
          labels: { app: 'x' },
          annotations: { 'prometheus.io/scrape': 'true' },
        },
        spec: { containers: [{ name: 'vllm', ports: [{ containerPort: 8000 }] }] },
        status: { phase: 'Running', podIP: '127.244.1.2', conditions: [{ type: 'Ready', status: 'True' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pending', namespace: 'ns' },
        spec: { containers: [] },
        status: { phase: 'Pending' },
      },
    ]);
    assert.equal(groups.length, 1);
    assert.deepEqual(groups[0]!.targets, ['127.244.1.2:8000']);
    assert.equal(groups[0]!.labels.__meta_kubernetes_pod_annotation_prometheus_io_scrape, 'true');
    assert.equal(groups[0]!.labels.__meta_kubernetes_pod_label_app, 'x');
    assert.equal(groups[0]!.labels.__meta_kubernetes_pod_ready, 'true');
  });
});

describe('runLoad', () => {
  it('sends each request to the endpoint with the fewest outstanding: a slow replica does not collect the clients', async () => {
    const fast = await startInferenceServer({
      host: '127.244.0.23',
      model: 'm',
      capacity: { decodeTokensPerSecond: 2000 },
    });
    const slow = await startInferenceServer({
      host: '127.244.0.24',
      model: 'm',
      capacity: { decodeTokensPerSecond: 40 },
    });
    try {
      const summary = await runLoad({
        targets: [fast.url, slow.url],
        model: 'm',
        concurrency: 4,
        durationMs: 1_500,
        maxTokens: 16,
      });
      assert.equal(summary.errors, 0, summary.lastError);
      const served = (e: typeof fast) => e.engine.counters.success.length + e.engine.counters.success.stop;
      // round-robin splits them evenly (the clients pile up on the slow one); by outstanding requests the
      // fast one serves most
      assert.ok(served(fast) > 2 * served(slow), `fast served ${served(fast)}, slow ${served(slow)}`);
    } finally {
      await fast.close();
      await slow.close();
    }
  });

  it('spreads requests over the endpoints and counts the answers', async () => {
    const a = await startInferenceServer({
      host: '127.244.0.21',
      model: 'm',
      capacity: { decodeTokensPerSecond: 2000 },
    });
    const b = await startInferenceServer({
      host: '127.244.0.22',
      model: 'm',
      capacity: { decodeTokensPerSecond: 2000 },
    });
    try {
      const summary = await runLoad({
        targets: async () => [a.url, b.url],
        model: 'm',
        concurrency: 4,
        durationMs: 600,
        maxTokens: 8,
      });
      assert.equal(summary.errors, 0, summary.lastError);
      assert.ok(summary.ok >= 4);
      assert.equal(summary.targets, 2);
      assert.ok(
        a.engine.counters.success.length + a.engine.counters.success.stop > 0,
        'the first endpoint served requests',
      );
      assert.ok(
        b.engine.counters.success.length + b.engine.counters.success.stop > 0,
        'the second endpoint served requests',
      );
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('servedModel: images that only mention vLLM', () => {
  it('a Llama Stack distribution for remote vLLM is not a vLLM server', () => {
    assert.equal(
      servedModel(
        pod([
          {
            name: 'c',
            image: 'docker.io/llamastack/distribution-remote-vllm:latest',
            env: [{ name: 'MODEL', value: 'x' }],
          },
        ]),
      ),
      undefined,
    );
  });
  it('`python -m vllm.entrypoints.openai.api_server --model m` is one', () => {
    assert.equal(
      servedModel(
        pod([
          {
            name: 'c',
            image: 'python:3.12',
            command: ['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'm'],
          },
        ]),
      )?.model,
      'm',
    );
  });
});

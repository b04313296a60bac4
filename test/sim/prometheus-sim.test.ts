// The simulated Prometheus answers exactly the queries the autoscaler and the simulated HPA send, with the
// values a real Prometheus would give, honours staleness (a gone pod's load is not current), and refuses
// what it does not implement instead of answering wrongly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podScrapeTargets } from '@modelplane/sim/prometheus-sim';
import { evaluateInstant, PromQLError, parsePromQL } from '@modelplane/sim/prometheus-sim/promql';
import { parseExposition, SampleStore } from '@modelplane/sim/prometheus-sim/store';
import { kvCacheQuery, queueQuery, requestsQuery } from '../../src/controllers/llmd/metrics-source/prometheus.ts';

const T0 = 1_700_000_000_000;
const vllm = (kv: number, waiting: number, success: number) =>
  [
    '# HELP vllm:kv_cache_usage_perc KV-cache usage.',
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc{model_name="m",engine="0"} ${kv}`,
    `vllm:num_requests_waiting{model_name="m",engine="0"} ${waiting}`,
    `vllm:request_success_total{model_name="m",engine="0",finished_reason="stop"} ${success}`,
    `vllm:num_requests_waiting{model_name="other",engine="0"} 99`,
  ].join('\n');

function storeWith(): SampleStore {
  const store = new SampleStore();
  const pods = { a: [0.2, 0.9, 0.4], b: [0.1, 0.1, 0.1] };
  for (let i = 0; i < 3; i++)
    for (const [pod, kv] of Object.entries(pods))
      store.ingest(
        pod,
        { namespace: 'ns', pod },
        parseExposition(vllm(kv[i]!, i + (pod === 'a' ? 3 : 0), i * 10)),
        T0 + i * 2000,
      );
  return store;
}

const values = (r: ReturnType<typeof evaluateInstant>) =>
  Object.fromEntries(r.map((s) => [s.metric.pod ?? JSON.stringify(s.metric), Number(s.value[1])]));

describe('simulated Prometheus: the autoscaler queries', () => {
  it('KV cache and queue: max over the window, per pod, only this model and namespace', () => {
    const store = storeWith();
    const at = T0 + 4000;
    assert.deepEqual(values(evaluateInstant(kvCacheQuery('ns', 'm'), store.all(), at)), { a: 0.9, b: 0.1 });
    assert.deepEqual(values(evaluateInstant(queueQuery('ns', 'm'), store.all(), at)), { a: 5, b: 2 });
    assert.deepEqual(evaluateInstant(kvCacheQuery('other-ns', 'm'), store.all(), at), []);
  });

  it('requests in a window: the counters increase summed over pods; a counter reset is counted, not negative', () => {
    const store = storeWith();
    assert.deepEqual(values(evaluateInstant(requestsQuery('ns', 'm', 60), store.all(), T0 + 4000)), { '{}': 40 });
    store.ingest('a', { namespace: 'ns', pod: 'a' }, parseExposition(vllm(0, 0, 5)), T0 + 6000);
    assert.equal(Number(evaluateInstant(requestsQuery('ns', 'm', 60), store.all(), T0 + 6000)[0]!.value[1]), 45);
  });

  it("a gone pod's series are stale: not current, and out of ranges after it went", () => {
    const store = storeWith();
    store.targetGone('a', T0 + 5000);
    assert.deepEqual(values(evaluateInstant('vllm:num_requests_waiting{model_name="m"}', store.all(), T0 + 6000)), {
      b: 2,
    });
    // the window still holds its samples from before it went, as a real range query would
    assert.deepEqual(values(evaluateInstant(kvCacheQuery('ns', 'm'), store.all(), T0 + 6000)), { a: 0.9, b: 0.1 });
    assert.deepEqual(values(evaluateInstant(kvCacheQuery('ns', 'm'), store.all(), T0 + 70_000)), {});
  });

  it("the HPA's query on the operator's gauge (honor_labels keeps the series' namespace)", () => {
    const store = new SampleStore();
    store.ingest(
      'op',
      { job: 'modelplane-operator', namespace: 'wrong' },
      parseExposition('wva_desired_replicas{variant_name="v",namespace="ns",accelerator_type="H100"} 3\n'),
      T0,
      true,
    );
    const r = evaluateInstant('sum(wva_desired_replicas{variant_name="v",namespace="ns"})', store.all(), T0 + 1000);
    assert.deepEqual(r, [{ metric: {}, value: [(T0 + 1000) / 1000, '3'] }]);
  });

  it('timestamp() of a name-matched selector, and the labelset clash Prometheus reports when names are dropped', () => {
    const store = storeWith();
    const at = T0 + 4000;
    const one = evaluateInstant(
      'max by (pod)(timestamp({__name__=~"vllm:kv_cache_usage_perc",namespace="ns"}))',
      store.all(),
      at,
    );
    assert.deepEqual(values(one), { a: (T0 + 4000) / 1000, b: (T0 + 4000) / 1000 });
    // kv and waiting of one pod differ only by their dropped names: a real Prometheus answers this error
    assert.throws(
      () =>
        evaluateInstant(
          'max by (pod)(timestamp({__name__=~"vllm:kv_cache_usage_perc|vllm:num_requests_waiting",namespace="ns",model_name="m"}))',
          store.all(),
          at,
        ),
      /vector cannot contain metrics with the same labelset/,
    );
  });

  it('or: the left samples, and the right ones whose label set the left lacks', () => {
    const store = storeWith();
    const sel = '{namespace="ns",model_name="m"}';
    const q = `max by (pod)(timestamp(vllm:kv_cache_usage_perc${sel}) or timestamp(vllm:num_requests_waiting${sel}))`;
    assert.deepEqual(values(evaluateInstant(q, store.all(), T0 + 4000)), {
      a: (T0 + 4000) / 1000,
      b: (T0 + 4000) / 1000,
    });
    const r = evaluateInstant(
      'vllm:num_requests_waiting{model_name="other"} or vllm:num_requests_waiting{pod="b"}',
      store.all(),
      T0 + 4000,
    );
    assert.deepEqual(
      r.map((x) => [x.metric.model_name, x.metric.pod, x.value[1]]),
      [
        ['other', 'a', '99'],
        ['other', 'b', '99'],
        ['m', 'b', '2'],
      ],
    );
  });

  it('refuses what it does not implement, naming it', () => {
    for (const [q, why] of [
      ['histogram_quantile(0.9, x)', /does not support histogram_quantile/],
      ['rate(x)', /needs a range vector/],
      ['x{a="b"} + 1', /unexpected character at position 8/],
      ['x{a~"b"}', /unexpected character|bad label matcher/],
      ['sum(x', /unexpected end of query/],
      ['{}', /needs a metric name or at least one matcher/],
      ['timestamp(x[1m])', /instant vector/],
    ] as const)
      assert.throws(
        () => parsePromQL(q),
        (e: Error) => e instanceof PromQLError && why.test(e.message),
        q,
      );
  });
});

describe('simulated Prometheus: what it scrapes', () => {
  it("the generated configuration's relabelling: annotated, Running pods at the annotated port and path", () => {
    const meta = (pod: string, phase: string, scrape: string) => ({
      targets: ['127.244.0.5:8000', '127.244.0.5:9000'],
      labels: {
        __meta_kubernetes_namespace: 'ns',
        __meta_kubernetes_pod_name: pod,
        __meta_kubernetes_pod_phase: phase,
        __meta_kubernetes_pod_annotation_prometheus_io_scrape: scrape,
        __meta_kubernetes_pod_annotation_prometheus_io_port: '8000',
        __meta_kubernetes_pod_annotation_prometheus_io_path: '/custom',
      },
    });
    assert.deepEqual(
      podScrapeTargets([meta('a', 'Running', 'true'), meta('b', 'Pending', 'true'), meta('c', 'Running', 'false')]),
      [{ address: '127.244.0.5:8000', path: '/custom', labels: { namespace: 'ns', pod: 'a' }, honorLabels: false }],
    );
  });

  it('parses the exposition format: escapes, special values, timestamps; skips what it cannot read', () => {
    const s = parseExposition(
      'a{l="x\\"y",m="1\\\\2"} 1.5 1700000000\nb NaN\nc +Inf\nbroken line here\nd{l="v"} notanumber\n',
    );
    assert.deepEqual(
      s.map((x) => [x.labels, x.value]),
      [
        [{ __name__: 'a', l: 'x"y', m: '1\\2' }, 1.5],
        [{ __name__: 'b' }, Number.NaN],
        [{ __name__: 'c' }, Number.POSITIVE_INFINITY],
      ],
    );
  });
});

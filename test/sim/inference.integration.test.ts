// The vLLM-compatible inference simulator: the OpenAI endpoints (plain and streaming), the errors vLLM
// gives, vLLM's metric names, and KV-cache use and queue that grow with concurrent load.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InferenceServer, startInferenceServer } from '@modelplane/sim/inference';
import { waitFor } from '../helpers/wait.ts';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const post = (srv: InferenceServer, path: string, body: unknown) =>
  fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const metric = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('inference simulator', () => {
  let srv: InferenceServer;
  before(async () => {
    // on its own loopback address, as each simulated pod is
    srv = await startInferenceServer({
      host: '127.244.0.9',
      model: MODEL,
      capacity: { maxNumSeqs: 2, numGpuBlocks: 64, decodeTokensPerSecond: 400 },
    });
  });
  after(() => srv.close());

  it('lists its model', async () => {
    const body = (await (await fetch(`${srv.url}/v1/models`)).json()) as {
      data: Array<{ id: string; owned_by: string }>;
    };
    assert.equal(body.data[0]!.id, MODEL);
    assert.ok(srv.url.startsWith('http://127.244.0.9:'));
  });

  it('answers a chat completion with usage', async () => {
    const res = await post(srv, '/v1/chat/completions', {
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello there' }],
      max_tokens: 20,
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      object: string;
      choices: Array<{ message: { role: string; content: string }; finish_reason: string }>;
      usage: { completion_tokens: number; prompt_tokens: number };
    };
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.choices[0]!.message.role, 'assistant');
    assert.ok(body.choices[0]!.message.content.length > 0);
    assert.ok(body.usage.completion_tokens > 0 && body.usage.completion_tokens <= 20);
    assert.equal(body.choices[0]!.finish_reason, body.usage.completion_tokens === 20 ? 'length' : 'stop');
  });

  it('answers a text completion', async () => {
    const body = (await (
      await post(srv, '/v1/completions', { model: MODEL, prompt: 'Once upon a time', max_tokens: 5 })
    ).json()) as { object: string; choices: Array<{ text: string; finish_reason: string }> };
    assert.equal(body.object, 'text_completion');
    assert.equal(body.choices[0]!.text.split(' ').length, 5);
    assert.equal(body.choices[0]!.finish_reason, 'length');
  });

  it('streams a chat completion as server-sent events ending in [DONE], with usage on request', async () => {
    const res = await post(srv, '/v1/chat/completions', {
      model: MODEL,
      messages: [{ role: 'user', content: 'Stream please' }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e) as {
          object: string;
          choices: Array<{ delta: { role?: string; content?: string }; finish_reason: string | null }>;
          usage?: { completion_tokens: number };
        },
    );
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant');
    const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
    assert.equal(text.split(' ').length, 12);
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason, 'length');
    assert.equal(chunks.at(-1)!.usage?.completion_tokens, 12);
  });

  it('gives vLLM/OpenAI errors for a wrong model, bad JSON and an over-long request', async () => {
    const wrong = await post(srv, '/v1/chat/completions', {
      model: 'gpt-4',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(wrong.status, 404);
    assert.match(
      ((await wrong.json()) as { error: { message: string } }).error.message,
      /The model `gpt-4` does not exist/,
    );
    const bad = await fetch(`${srv.url}/v1/completions`, { method: 'POST', body: '{nope' });
    assert.equal(bad.status, 400);
    const long = await post(srv, '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 100_000 });
    assert.match(
      ((await long.json()) as { error: { message: string } }).error.message,
      /maximum context length is 4096 tokens/,
    );
  });

  it("exports vLLM's metrics; KV-cache use and the queue grow with concurrent load and drain after it", async () => {
    const slow = await startInferenceServer({
      host: '127.244.0.10',
      model: MODEL,
      capacity: { maxNumSeqs: 2, numGpuBlocks: 64, decodeTokensPerSecond: 30 },
    });
    try {
      await loadAndDrain(slow);
    } finally {
      await slow.close();
    }
  });
});

async function loadAndDrain(srv: InferenceServer): Promise<void> {
  {
    const idle = await (await fetch(`${srv.url}/metrics`)).text();
    for (const name of [
      'vllm:kv_cache_usage_perc',
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:request_success_total',
      'vllm:prompt_tokens_total',
      'vllm:generation_tokens_total',
      'vllm:cache_config_info',
    ])
      assert.ok(idle.includes(name), `${name} exported`);
    assert.match(idle, /vllm:cache_config_info\{[^}]*block_size="16"[^}]*num_gpu_blocks="64"/);
    assert.equal(metric(idle, 'vllm:kv_cache_usage_perc'), 0);
    const successBefore = metric(idle, 'vllm:request_success_total') ?? 0;
    const load = Array.from({ length: 6 }, (_, i) =>
      post(srv, '/v1/completions', { model: MODEL, prompt: `load ${i}`, max_tokens: 200 }),
    );
    const busy = await waitFor('six requests in the server', async () => {
      const text = await (await fetch(`${srv.url}/metrics`)).text();
      return (
        (metric(text, 'vllm:num_requests_running') ?? 0) + (metric(text, 'vllm:num_requests_waiting') ?? 0) === 6 &&
        text
      );
    });
    assert.equal(metric(busy, 'vllm:num_requests_running'), 2, 'maxNumSeqs 2 run at once');
    assert.equal(metric(busy, 'vllm:num_requests_waiting'), 4, 'the rest wait');
    assert.ok((metric(busy, 'vllm:kv_cache_usage_perc') ?? 0) > 0, 'running sequences hold KV cache');
    await Promise.all(load.map(async (p) => (await p).json()));
    const after = await (await fetch(`${srv.url}/metrics`)).text();
    assert.equal(metric(after, 'vllm:num_requests_waiting'), 0);
    assert.equal(metric(after, 'vllm:kv_cache_usage_perc'), 0);
    const success = after
      .split('\n')
      .filter((l) => l.startsWith('vllm:request_success_total{'))
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    assert.ok(success >= successBefore + 6);
  }
}

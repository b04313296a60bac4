// A simulated vLLM server (docs/autoscaling.md, "The inference simulator"): the OpenAI-compatible API vLLM
// serves (/v1/models, /v1/completions, /v1/chat/completions with streaming), /health, /version and
// /metrics, backed by the capacity model of engine.ts. Answers are made-up words; their length and timing
// follow the model.
//
//   const srv = await startInferenceServer({ host: '127.244.1.2', port: 8000, model: 'meta-llama/Llama-3.1-8B-Instruct' });
//   await fetch(`${srv.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model, messages }) });
//   await srv.close();
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonBody, serveGuarded } from '@modelplane/runtime/serve';
import type { Registry } from 'prom-client';
import { type CapacityModel, type GenerationResult, InferenceEngine } from './engine.ts';
import { engineRegistry } from './metrics.ts';

export interface InferenceServerOptions {
  /** the address to listen on (each simulated pod has its own loopback address) */
  host?: string;
  /** 0 = any free port */
  port?: number;
  /** the served model name (vLLM --served-model-name, else --model) */
  model: string;
  capacity?: Partial<CapacityModel>;
}

export interface InferenceServer {
  readonly url: string;
  readonly model: string;
  readonly engine: InferenceEngine;
  readonly registry: Registry;
  close(): Promise<void>;
}

const VERSION = '0.10.1';
/** the largest request body it accepts (a long prompt fits; vLLM itself sets no limit) */
export const INFERENCE_MAX_BODY_BYTES = 4_000_000;
const WORDS =
  'the model answers with simulated tokens whose count and pace follow a capacity model of a vLLM server under load'.split(
    ' ',
  );

export async function startInferenceServer(opts: InferenceServerOptions): Promise<InferenceServer> {
  const engine = new InferenceEngine(opts.capacity);
  const registry = engineRegistry(engine, opts.model);
  const server = serveGuarded(
    http.createServer(),
    {
      name: 'the simulated inference server',
      maxBodyBytes: INFERENCE_MAX_BODY_BYTES,
      sendError: (res, status, message) =>
        sendError(res, status, message, status >= 500 ? 'InternalServerError' : 'BadRequestError'),
    },
    (req, res, { url, body }) => handle(req, res, url.pathname, body, opts.model, engine, registry),
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${addr.address}:${addr.port}`,
    model: opts.model,
    engine,
    registry,
    close: () =>
      new Promise<void>((resolve) => {
        engine.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  raw: Buffer,
  model: string,
  engine: InferenceEngine,
  registry: Registry,
): Promise<void> {
  if (req.method === 'GET' && path === '/metrics') {
    res.writeHead(200, { 'Content-Type': registry.contentType });
    res.end(await registry.metrics());
    return;
  }
  if (req.method === 'GET' && path === '/health') return void res.writeHead(200).end();
  if (req.method === 'GET' && path === '/version') return sendJson(res, 200, { version: VERSION });
  if (req.method === 'GET' && path === '/v1/models') {
    return sendJson(res, 200, {
      object: 'list',
      data: [
        {
          id: model,
          object: 'model',
          created: 0,
          owned_by: 'vllm',
          root: model,
          parent: null,
          max_model_len: engine.capacity.maxModelLen,
        },
      ],
    });
  }
  if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions')) {
    const body = parseJsonBody(raw);
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return sendError(res, 400, 'the request body must be a JSON object', 'BadRequestError');
    return complete(res, body as CompletionBody, path === '/v1/chat/completions', model, engine);
  }
  sendError(
    res,
    404,
    `no route ${req.method} ${path}; this server serves /v1/models, /v1/completions, /v1/chat/completions, /health, /version and /metrics`,
    'NotFoundError',
  );
}

interface CompletionBody {
  model?: unknown;
  prompt?: unknown;
  messages?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
}

interface CompletionRequest {
  text: string;
  promptTokens: number;
  maxTokens: number;
}

/** The request's prompt and token budget, or the error vLLM answers (status, message, OpenAI error type). */
function parseCompletion(
  body: CompletionBody,
  chat: boolean,
  model: string,
  engine: InferenceEngine,
): CompletionRequest | { code: number; message: string; type: string } {
  if (body.model !== undefined && body.model !== model)
    return { code: 404, message: `The model \`${String(body.model)}\` does not exist.`, type: 'NotFoundError' };
  const text = chat ? messagesText(body.messages) : promptText(body.prompt);
  if (text === undefined) {
    const message = chat
      ? '"messages" must be a non-empty list of {role, content} objects'
      : '"prompt" must be a string or a list of strings';
    return { code: 400, message, type: 'BadRequestError' };
  }
  const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 256);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    const message = `"max_tokens" must be a positive integer, got ${JSON.stringify(body.max_tokens)}`;
    return { code: 400, message, type: 'BadRequestError' };
  }
  const promptTokens = Math.max(1, Math.ceil(text.length / 4));
  if (promptTokens + maxTokens > engine.capacity.maxModelLen) {
    const message = `This model's maximum context length is ${engine.capacity.maxModelLen} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`;
    return { code: 400, message, type: 'BadRequestError' };
  }
  return { text, promptTokens, maxTokens };
}

async function complete(
  res: http.ServerResponse,
  body: CompletionBody,
  chat: boolean,
  model: string,
  engine: InferenceEngine,
): Promise<void> {
  const request = parseCompletion(body, chat, model, engine);
  if ('code' in request) return sendError(res, request.code, request.message, request.type);
  const { text, promptTokens, maxTokens } = request;
  // the same prompt always gets the same answer: its length and words come from the prompt's hash
  const digest = createHash('sha256').update(text).digest();
  const naturalTokens = 16 + (digest[0]! % 48);
  const id = `${chat ? 'chatcmpl' : 'cmpl'}-${randomUUID().replaceAll('-', '')}`;
  const head = { id, object: chat ? 'chat.completion.chunk' : 'text_completion', created: nowSeconds(), model };
  // a client that goes away stops the generation (and frees its KV-cache)
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let produced = 0;
  const words = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(WORDS[(digest[1]! + produced + i) % WORDS.length]!);
    produced += n;
    return out.join(' ');
  };
  const stream = body.stream === true ? eventStream(res, head, chat) : undefined;
  let content = '';
  const onTokens = (n: number) => {
    const piece = `${content ? ' ' : ''}${words(n)}`;
    content += piece;
    stream?.piece(piece);
  };
  const result = await engine.generate({ promptTokens, naturalTokens, maxTokens, onTokens }, abort.signal);
  if (result.finishReason === 'abort') return;
  const usage = usageOf(result);
  if (stream)
    return stream.finish(result.finishReason, body.stream_options?.include_usage === true ? usage : undefined);
  const choice = chat
    ? { index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: result.finishReason }
    : { index: 0, text: content, logprobs: null, finish_reason: result.finishReason };
  const object = chat ? 'chat.completion' : 'text_completion';
  sendJson(res, 200, { id, object, created: head.created, model, choices: [choice], usage });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A streamed completion as server-sent events in OpenAI's chunk shape: for chat a first chunk with the role,
 * one chunk per piece of text, a last one with the finish reason, the usage if asked for, then [DONE].
 */
function eventStream(res: http.ServerResponse, head: Record<string, unknown>, chat: boolean) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  const chunk = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
  const choice = (text: string | undefined, finish: string | null) =>
    chat
      ? { index: 0, delta: text === undefined ? {} : { content: text }, logprobs: null, finish_reason: finish }
      : { index: 0, text: text ?? '', logprobs: null, finish_reason: finish };
  if (chat)
    chunk({
      ...head,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
  return {
    piece: (text: string) => chunk({ ...head, choices: [choice(text, null)] }),
    finish: (finishReason: string, usage: ReturnType<typeof usageOf> | undefined) => {
      chunk({ ...head, choices: [choice(undefined, finishReason)] });
      if (usage) chunk({ ...head, choices: [], usage });
      res.end('data: [DONE]\n\n');
    },
  };
}

function usageOf(r: GenerationResult) {
  return {
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    total_tokens: r.promptTokens + r.completionTokens,
  };
}

function messagesText(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const parts: string[] = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object' || typeof (m as { role?: unknown }).role !== 'string') return undefined;
    const c = (m as { content?: unknown }).content;
    if (typeof c === 'string') parts.push(c);
    else if (Array.isArray(c))
      for (const p of c)
        if (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string')
          parts.push((p as { text: string }).text);
  }
  return parts.join('\n');
}

function promptText(prompt: unknown): string | undefined {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.every((p) => typeof p === 'string')) return prompt.join('\n');
  return undefined;
}

function sendJson(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** OpenAI's error shape, as vLLM returns it */
function sendError(res: http.ServerResponse, code: number, message: string, type: string): void {
  if (res.headersSent) return void res.end();
  sendJson(res, code, { error: { message, type, param: null, code } });
}

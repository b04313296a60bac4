// "Try it" on a ModelDeployment's page (docs/dashboard.md): its endpoints with a curl to copy (through the
// shared Gateway and direct, in-cluster), and a chat box. The chat request is built by this server: the
// browser sends only the message text; the model and the URL come from the object's status (the Gateway
// URL the gateway controller published), never from the request.
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseJsonBody } from '@modelplane/runtime/serve';
import { sendJson } from './http.ts';
import type { DashboardState } from './state.ts';
import type { TryPanel } from './types.ts';

type Loose = Record<string, any>;

/** the longest message the chat box sends, and how long an answer may take */
export const CHAT_MAX_MESSAGE = 2_000;
export const CHAT_TIMEOUT_MS = 30_000;
const CHAT_MAX_TOKENS = 64;

/** the model name requests carry: the gateway's, else spec.gateway.modelName, servedName, model id */
function modelNameOf(md: KubeObject): string | undefined {
  const spec = ((md as Loose).spec ?? {}) as Loose;
  const status = ((md as Loose).status ?? {}) as Loose;
  return status.gateway?.modelName ?? spec.gateway?.modelName ?? spec.model?.servedName ?? spec.model?.id;
}

const httpUrl = (u: unknown): string | undefined =>
  typeof u === 'string' && /^https?:\/\/[^\s'"]+$/.test(u) ? u.replace(/\/+$/, '') : undefined;

/** a chat completion as curl; without a model the server answers with the one it serves (vLLM's default) */
export function curlFor(base: string, model: string | undefined): string {
  const body = JSON.stringify({
    ...(model ? { model } : {}),
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: CHAT_MAX_TOKENS,
  });
  return `curl -sS '${base}/v1/chat/completions' -H 'content-type: application/json' -d '${body.replaceAll("'", "'\\''")}'`;
}

export function tryPanel(md: KubeObject): TryPanel | undefined {
  if (md.kind !== 'ModelDeployment') return undefined;
  const status = ((md as Loose).status ?? {}) as Loose;
  const model = modelNameOf(md);
  if (!model) return undefined;
  const gateway = httpUrl(status.endpoint?.gatewayUrl);
  const direct = httpUrl(status.endpoint?.url);
  return {
    kind: 'try',
    model,
    endpoints: [
      ...(gateway
        ? [{ via: 'gateway' as const, url: gateway, curl: curlFor(gateway, model), note: 'through the shared Gateway' }]
        : []),
      ...(direct
        ? [
            {
              via: 'direct' as const,
              url: direct,
              curl: curlFor(direct, model),
              note: 'the Service, from inside the cluster (a pod, or kubectl port-forward)',
            },
          ]
        : []),
    ],
    canChat: gateway !== undefined,
  };
}

/**
 * An AIMService's endpoint: its HTTPRoute's Gateway address and status.routing.path (the route rewrites the
 * prefix away). The model an AIM image serves is its own; the curl leaves it out, as vLLM allows.
 */
export function aimTryPanel(
  svc: KubeObject,
  routes: readonly KubeObject[],
  gateways: readonly KubeObject[],
): TryPanel | undefined {
  if (svc.kind !== 'AIMService') return undefined;
  const path = ((svc as Loose).status?.routing?.path ?? '') as string;
  const route = routes.find((r) => r.metadata.ownerReferences?.some((o) => o.uid === svc.metadata.uid));
  const parent = ((route as Loose | undefined)?.spec?.parentRefs ?? [])[0] as Loose | undefined;
  const gateway = gateways.find(
    (g) =>
      g.metadata.name === parent?.name && g.metadata.namespace === (parent?.namespace ?? route?.metadata.namespace),
  );
  const address = ((gateway as Loose | undefined)?.status?.addresses ?? [])[0]?.value as string | undefined;
  const base = address && path ? httpUrl(`http://${address}${path}`) : undefined;
  return {
    kind: 'try',
    model: '',
    endpoints: base
      ? [
          {
            via: 'gateway',
            url: base,
            curl: curlFor(base, undefined),
            note: `through Gateway ${gateway!.metadata.namespace}/${gateway!.metadata.name}`,
          },
        ]
      : [],
    // the chat box talks to ModelDeployments: an AIM image's served model name is not in the object
    canChat: false,
  };
}

/** POST /api/chat?key=<ModelDeployment key>, body {message}: one chat completion through its Gateway URL */
export async function chat(res: ServerResponse, state: DashboardState, key: string, raw: Buffer): Promise<void> {
  const md = state.find(key);
  const panel = md ? tryPanel(md) : undefined;
  const gateway = panel?.endpoints.find((e) => e.via === 'gateway');
  if (!panel || !gateway)
    return sendJson(res, 404, {
      error: `no ModelDeployment ${key} routed through the Gateway is visible to the dashboard`,
    });
  const body = parseJsonBody(raw) as { message?: unknown } | undefined;
  const message = body?.message;
  if (typeof message !== 'string' || message.trim() === '' || message.length > CHAT_MAX_MESSAGE)
    return sendJson(res, 422, {
      error: `message must be a non-empty string of at most ${CHAT_MAX_MESSAGE} characters`,
    });
  const started = performance.now();
  try {
    const r = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: panel.model,
        messages: [{ role: 'user', content: message }],
        max_tokens: CHAT_MAX_TOKENS,
      }),
      signal: AbortSignal.timeout(CHAT_TIMEOUT_MS),
      redirect: 'error',
    });
    const latencyMs = Math.round(performance.now() - started);
    const text = await r.text();
    let answer: string | undefined;
    try {
      answer = (JSON.parse(text) as Loose).choices?.[0]?.message?.content;
    } catch {
      answer = undefined;
    }
    if (!r.ok || typeof answer !== 'string')
      return sendJson(res, 502, {
        error: `the Gateway at ${gateway.url} answered ${r.status}: ${text.slice(0, 300)}`,
        latencyMs,
      });
    sendJson(res, 200, { answer, latencyMs, model: panel.model, via: gateway.url });
  } catch (err) {
    sendJson(res, 502, {
      error: `the Gateway at ${gateway.url} did not answer: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
      latencyMs: Math.round(performance.now() - started),
    });
  }
}

// "Try it" on a ModelDeployment's and an AIMService's page (docs/dashboard.md): its endpoints with a curl to
// copy (through the shared Gateway and direct, in-cluster), and a chat box. The chat request is built by this
// server: the browser sends only the message text; the model and the URL come from the object and what it
// owns (the Gateway URL the gateway controller published, the AIMService's route), never from the request.
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseJsonBody } from '@modelplane/runtime/serve';
import { sendJson } from './http.ts';
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

/** `Type reason: message` of the first of `types` that is not True, for saying why there is no chat box */
function notTrue(obj: KubeObject, types: readonly string[]): string | undefined {
  const conditions = (((obj as Loose).status?.conditions ?? []) as Loose[]).filter((c) => c && typeof c === 'object');
  const c = types.map((t) => conditions.find((x) => x.type === t)).find((x) => x && x.status !== 'True');
  return c ? `${c.type} ${c.reason ?? c.status}: ${String(c.message ?? '').slice(0, 500)}` : undefined;
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
    ...(gateway
      ? {}
      : {
          noChat:
            notTrue(md, ['GatewayReady']) ??
            'it is not routed through a Gateway (status.endpoint.gatewayUrl is not set; see spec.gateway)',
        }),
  };
}

/** the AIM env a custom model's service names its model in (docs/aim.md) */
const AIM_MODEL_ID_ENV = 'AIM_MODEL_ID';

/** what an AIMService's pages read beside it: its route, the Gateway, its InferenceService and models */
export interface AimWorld {
  routes: readonly KubeObject[];
  gateways: readonly KubeObject[];
  inferenceServices?: readonly KubeObject[];
  models?: readonly KubeObject[];
}

const ownedBy = (svc: KubeObject) => (o: KubeObject) =>
  o.metadata.namespace === svc.metadata.namespace &&
  (o.metadata.ownerReferences ?? []).some((r) => r.uid === svc.metadata.uid);

/**
 * The model an AIMService's image serves: the AIM_MODEL_ID its spec.env sets (a custom model), else the
 * canonical name of the model it resolved to (status.resolvedModel → the AIMModel's image metadata).
 */
function aimModelName(svc: KubeObject, models: readonly KubeObject[]): string {
  const spec = ((svc as Loose).spec ?? {}) as Loose;
  const env = (spec.env ?? []).find((e: Loose) => e?.name === AIM_MODEL_ID_ENV)?.value;
  if (typeof env === 'string' && env) return env;
  const ref = ((svc as Loose).status?.resolvedModel ?? {}) as Loose;
  const model = models.find(
    (m) =>
      m.kind === ref.kind &&
      m.metadata.name === ref.name &&
      (m.kind === 'AIMClusterModel' || m.metadata.namespace === svc.metadata.namespace),
  );
  const name = (model as Loose | undefined)?.status?.imageMetadata?.model?.canonicalName;
  return typeof name === 'string' ? name : '';
}

/** the Gateway address of the service's HTTPRoute and status.routing.path (the route rewrites the prefix away) */
function aimGatewayEndpoint(svc: KubeObject, world: AimWorld): { url: string; note: string } | undefined {
  const path = ((svc as Loose).status?.routing?.path ?? '') as string;
  const route = world.routes.find(ownedBy(svc));
  const parent = ((route as Loose | undefined)?.spec?.parentRefs ?? [])[0] as Loose | undefined;
  const gateway = world.gateways.find(
    (g) =>
      g.metadata.name === parent?.name && g.metadata.namespace === (parent?.namespace ?? route?.metadata.namespace),
  );
  const address = ((gateway as Loose | undefined)?.status?.addresses ?? [])[0]?.value as string | undefined;
  const url = address && path.startsWith('/') ? httpUrl(`http://${address}${path}`) : undefined;
  return url && gateway
    ? { url, note: `through Gateway ${gateway.metadata.namespace}/${gateway.metadata.name}` }
    : undefined;
}

/**
 * An AIMService's endpoints: through its HTTPRoute's Gateway (the chat box's way in), and its
 * InferenceService's in-cluster address (status.address.url). The curl names the model when the service's
 * model is known, and leaves it out otherwise (vLLM then answers with the one model it serves).
 */
export function aimTryPanel(svc: KubeObject, world: AimWorld): TryPanel | undefined {
  if (svc.kind !== 'AIMService') return undefined;
  const model = aimModelName(svc, world.models ?? []);
  const gateway = aimGatewayEndpoint(svc, world);
  const isvc = (world.inferenceServices ?? []).find(ownedBy(svc));
  const direct = httpUrl((isvc as Loose | undefined)?.status?.address?.url);
  return {
    kind: 'try',
    model,
    endpoints: [
      ...(gateway ? [{ via: 'gateway' as const, ...gateway, curl: curlFor(gateway.url, model || undefined) }] : []),
      ...(direct
        ? [
            {
              via: 'direct' as const,
              url: direct,
              curl: curlFor(direct, model || undefined),
              note: `InferenceService ${isvc!.metadata.name}, from inside the cluster (a pod, or kubectl port-forward)`,
            },
          ]
        : []),
    ],
    canChat: gateway !== undefined,
    ...(gateway
      ? {}
      : {
          noChat:
            notTrue(svc, ['RoutingReady', 'HTTPRouteReady']) ??
            ((svc as Loose).status?.routing?.path
              ? 'the Gateway its HTTPRoute is attached to has no address yet'
              : 'it has no route on a Gateway (AIM routing is off: spec.routing.enabled, or its runtime config)'),
        }),
  };
}

/** what Try it reads from the dashboard's view of the cluster (a DashboardState) */
export interface TryView {
  ofKind(kind: string, group?: string): KubeObject[];
  find(key: string): KubeObject | undefined;
}

/** the Try-it panel of a ModelDeployment or an AIMService (the only kinds a person chats with) */
export function tryPanelOf(view: TryView, obj: KubeObject): TryPanel | undefined {
  if (obj.kind === 'ModelDeployment') return tryPanel(obj);
  if (obj.kind !== 'AIMService') return undefined;
  return aimTryPanel(obj, {
    routes: view.ofKind('HTTPRoute', 'gateway.networking.k8s.io'),
    gateways: view.ofKind('Gateway', 'gateway.networking.k8s.io'),
    inferenceServices: view.ofKind('InferenceService', 'serving.kserve.io'),
    models: [...view.ofKind('AIMModel', 'aim.eai.amd.com'), ...view.ofKind('AIMClusterModel', 'aim.eai.amd.com')],
  });
}

/**
 * POST /api/chat?key=<ModelDeployment or AIMService key>, body {message}: one chat completion through the
 * Gateway URL its Try-it panel shows. Only the message comes from the body.
 */
export async function chat(res: ServerResponse, state: TryView, key: string, raw: Buffer): Promise<void> {
  const obj = state.find(key);
  const panel = obj ? tryPanelOf(state, obj) : undefined;
  const gateway = panel?.endpoints.find((e) => e.via === 'gateway');
  if (!panel || !gateway)
    return sendJson(res, 404, {
      error: `no ModelDeployment or AIMService ${key.slice(0, 300)} routed through the Gateway is visible to the dashboard`,
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
        ...(panel.model ? { model: panel.model } : {}),
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

// The dashboard's backend: a small HTTP server inside the CLI. It reads the cluster only through the
// DashboardState's watches (the user's credentials), pushes changes to browsers over Server-Sent Events,
// checks the ModelDeployment form like the webhooks would, and creates with the user's credentials.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { HttpError, parseJsonBody, serveGuarded } from '@modelplane/runtime/serve';
import type { InferenceProviderConfig } from '../../apis/kubeairunway/index.ts';
import { catalogView } from './catalog.ts';
import { type DetailExtras, resourceDetail } from './detail.ts';
import { withApiServerWording } from './dry-run.ts';
import {
  type AccessPolicy,
  admit,
  DASHBOARD_MAX_BODY_BYTES,
  isLoopback,
  openEventStream,
  sendJson,
  serveStatic,
  staticToken,
} from './http.ts';
import { LoadRefusal, type LoadRunner } from './load.ts';
import { streamLogs } from './logs.ts';
import type { DecisionFeed } from './panels/autoscaler.ts';
import type { DashboardState } from './state.ts';
import { chat } from './try.ts';
import type { DashboardInfo, SnapshotMessage } from './types.ts';
import type { UserSessions } from './users.ts';
import { type FormContext, formObject, validateForm } from './validate.ts';

export interface DashboardServerOptions {
  state: DashboardState;
  host: string;
  port: number;
  /** the built front end (web/dist) */
  staticDir: string;
  /** shown in the header: which cluster and who */
  cluster: string;
  user: string;
  readOnly?: boolean;
  /** the only namespace it serves (`-n`): the form creates nowhere else */
  namespace?: string;
  /** the autoscaler's decision history, when it runs in this process */
  feed?: DecisionFeed;
  /** sends load to a variant's Service (the "send load" button), when this dashboard can */
  load?: LoadRunner;
  logger: Logger;
}

/** how startDashboardServer is started: with one view of the cluster, or a view per signed-in person */
export type DashboardServerStart = Omit<DashboardServerOptions, 'state'> &
  ({ state: DashboardState; sessions?: undefined } | { state?: undefined; sessions: UserSessions });

export interface DashboardServer {
  url: string;
  /** set when bound beyond loopback: the browser must present it */
  token?: string;
  close(): Promise<void>;
}

async function servedApis(state: DashboardState): Promise<Set<string>> {
  const body = (await state.client.transport.request({ method: 'GET', path: '/apis' })).body as {
    groups?: Array<{ versions?: Array<{ groupVersion: string }> }>;
  };
  return new Set((body.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)));
}

function streamOverview(
  req: IncomingMessage,
  res: ServerResponse,
  state: DashboardState,
  info: () => DashboardInfo,
): void {
  let off = () => {};
  const send = openEventStream(req, res, () => off());
  const snapshot: SnapshotMessage = { info: info(), resources: state.summaries() };
  send('snapshot', snapshot);
  off = state.onChange((c) => {
    if (c.upserts.length > 0 || c.removes.length > 0) send('changes', { upserts: c.upserts, removes: c.removes });
  });
}

function streamResource(
  req: IncomingMessage,
  res: ServerResponse,
  state: DashboardState,
  key: string,
  extras: DetailExtras,
): void {
  let off = () => {};
  const send = openEventStream(req, res, () => off());
  let last = '';
  const push = () => {
    const detail = resourceDetail(state, key, extras);
    const text = JSON.stringify(detail ?? null);
    if (text === last) return;
    last = text;
    send(detail ? 'detail' : 'gone', detail ?? { key });
  };
  push();
  // any change may move this page: its own object, a child, an event, a provider's heartbeat; the clock
  // moves the autoscaler's history and a running load's end without any event
  const unsubscribe = state.onChange(() => push());
  const tick = setInterval(push, 2_000);
  off = () => {
    unsubscribe();
    clearInterval(tick);
  };
}

/** POST /api/load?key=…: a minute of load on the variant the key names; nothing is read from the body */
async function sendLoad(res: ServerResponse, opts: DashboardServerOptions, key: string): Promise<void> {
  if (!opts.load)
    return sendJson(res, 404, { error: 'this dashboard cannot send load (it runs beside modelplane dev only)' });
  if (opts.readOnly) return sendJson(res, 403, { error: 'this dashboard was started with --read-only' });
  const va = opts.state.find(key);
  if (va?.kind !== 'VariantAutoscaling')
    return sendJson(res, 404, { error: `no VariantAutoscaling ${key} is visible to the dashboard` });
  try {
    sendJson(res, 202, await opts.load.start(va, key));
  } catch (err) {
    if (!(err instanceof LoadRefusal)) throw err;
    sendJson(res, err.status, { error: err.message });
  }
}

async function formContext(opts: DashboardServerOptions): Promise<FormContext> {
  return {
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    providers: opts.state.ofKind('InferenceProviderConfig', 'kubeairunway.ai') as InferenceProviderConfig[],
    served: await servedApis(opts.state),
  };
}

/** creates the ModelDeployment the form describes: the object is built here, the body only gives its values */
async function create(res: ServerResponse, body: unknown, opts: DashboardServerOptions): Promise<void> {
  const checked = validateForm(body, await formContext(opts));
  if (checked.errors.length > 0)
    return sendJson(res, 422, await withApiServerWording(checked, body, opts.state.client));
  try {
    const created = await opts.state.client
      .withFieldManager('modelplane-dashboard')
      .create(formObject(body) as unknown as KubeObject);
    sendJson(res, 201, {
      key: `kubeairunway.ai/ModelDeployment/${created.metadata.namespace}/${created.metadata.name}`,
      warnings: checked.warnings,
    });
  } catch (err) {
    // the API server's answer (admission, quota, RBAC) is the user's to read, as kubectl would print it
    const status = err instanceof ApiError && err.code >= 400 ? err.code : 502;
    sendJson(res, status, { errors: [{ field: '', message: (err as Error).message }], warnings: [] });
  }
}

/** the dashboard's HTTP API and, for any other path, the built front end */
async function route(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: Buffer,
  opts: DashboardServerOptions,
  info: () => DashboardInfo,
): Promise<void> {
  const { state } = opts;
  const p = url.pathname;
  if (p === '/api/info') return sendJson(res, 200, info());
  if (p === '/api/stream') return streamOverview(req, res, state, info);
  const extras: DetailExtras = { ...(opts.feed ? { feed: opts.feed } : {}), ...(opts.load ? { load: opts.load } : {}) };
  if (p === '/api/stream/resource') return streamResource(req, res, state, url.searchParams.get('key') ?? '', extras);
  if (p === '/api/stream/logs')
    return streamLogs(req, res, state, url.searchParams.get('key') ?? '', url.searchParams.get('container'));
  if (p === '/api/load' && req.method === 'POST') {
    if (opts.readOnly) return sendJson(res, 403, { error: 'this dashboard was started with --read-only' });
    return sendLoad(res, opts, url.searchParams.get('key') ?? '');
  }
  if (p === '/api/chat' && req.method === 'POST') return chat(res, state, url.searchParams.get('key') ?? '', body);
  if (p === '/api/resources') return sendJson(res, 200, state.summaries());
  if (p === '/api/catalog') return sendJson(res, 200, catalogView({ ofKind: (k) => state.ofKind(k) }));
  if (p === '/api/resource') {
    const detail = resourceDetail(state, url.searchParams.get('key') ?? '', extras);
    return detail
      ? sendJson(res, 200, detail)
      : sendJson(res, 404, { error: `no resource ${url.searchParams.get('key')} is visible to the dashboard` });
  }
  if (p === '/api/providers')
    return sendJson(
      res,
      200,
      state.ofKind('InferenceProviderConfig', 'kubeairunway.ai').map((c) => c.metadata.name),
    );
  if (p === '/api/modeldeployments/validate' && req.method === 'POST')
    return sendJson(
      res,
      200,
      await withApiServerWording(
        validateForm(parseJsonBody(body), await formContext(opts)),
        parseJsonBody(body),
        opts.state.client,
      ),
    );
  if (p === '/api/modeldeployments' && req.method === 'POST') {
    if (opts.readOnly) return sendJson(res, 403, { error: 'this dashboard was started with --read-only' });
    return create(res, parseJsonBody(body), opts);
  }
  if (p.startsWith('/api/')) return sendJson(res, 404, { error: `unknown API path ${p.slice(0, 200)}` });
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw new HttpError(405, `${req.method} is not served here: the dashboard's pages are read with GET`);
  if (!existsSync(opts.staticDir))
    return sendJson(res, 503, {
      error: `the dashboard's front end is not built (${opts.staticDir} is missing): run npm run build:web`,
    });
  serveStatic(res, opts.staticDir, p);
}

/** who may call (loopback, the printed token, or each person's own Kubernetes token) */
function accessPolicy(opts: DashboardServerStart, token: string | undefined): AccessPolicy {
  if (opts.sessions) {
    const sessions = opts.sessions;
    return {
      verify: async (t) => (await sessions.review(t)) !== undefined,
      tokenHint:
        'sign in with your Kubernetes bearer token: open /?token=TOKEN once (it becomes an HttpOnly cookie) or send "Authorization: Bearer TOKEN"; the API server reviews it',
    };
  }
  return token ? { verify: staticToken(token) } : {};
}

export async function startDashboardServer(opts: DashboardServerStart): Promise<DashboardServer> {
  const loopback = isLoopback(opts.host);
  // with per-person sign-in the Kubernetes token is the credential; otherwise a random one beyond loopback
  const token = loopback || opts.sessions ? undefined : randomBytes(24).toString('base64url');
  const policy = accessPolicy(opts, token);
  const info = (state: DashboardState, user: string) => (): DashboardInfo => ({
    cluster: opts.cluster,
    user,
    kinds: state.kinds,
    hidden: state.hidden,
    readOnly: opts.readOnly === true,
  });
  const server: Server = serveGuarded(
    createServer(),
    {
      name: 'the dashboard',
      maxBodyBytes: DASHBOARD_MAX_BODY_BYTES,
      sendError: (res, status, error) => sendJson(res, status, { error }),
      onError: (error, req) => opts.logger.warn('dashboard request failed', { path: req.url?.slice(0, 200), error }),
    },
    async (req, res, { url, body }) => {
      const admitted = await admit(req, res, url, policy);
      if (!admitted) return;
      const session = opts.sessions && admitted.token ? await opts.sessions.session(admitted.token) : undefined;
      const state = session?.state ?? opts.state;
      if (!state) return sendJson(res, 401, { error: policy.tokenHint ?? 'not signed in' });
      await route(req, res, url, body, { ...opts, state }, info(state, session?.user.user ?? opts.user));
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  if (loopback)
    policy.loopbackHosts = new Set([
      `${hostForUrl}:${port}`,
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
    ]);
  return {
    url: `http://${hostForUrl}:${port}/`,
    ...(token ? { token } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

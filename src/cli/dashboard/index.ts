// `startDashboard`: watches through the given client and serves the web dashboard (docs/dashboard.md).
// Used by `modelplane dev` (admin kubeconfig of the embedded cluster) and `modelplane dashboard` (any
// kubeconfig: the user's own credentials, nothing more).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import type { LoadRunner } from './load.ts';
import type { DecisionFeed } from './panels/autoscaler.ts';
import { type DashboardServer, startDashboardServer } from './server.ts';
import { DashboardState } from './state.ts';
import { UserSessions } from './users.ts';

export { LoadRefusal, type LoadRunner } from './load.ts';
export type { DecisionFeed, DecisionLike } from './panels/autoscaler.ts';
export type { DashboardServer } from './server.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** the built front end: web/dist of the checkout, or where the image puts it (MODELPLANE_WEB_DIR, deploy/Dockerfile) */
export const WEB_DIST = process.env.MODELPLANE_WEB_DIR
  ? resolve(process.env.MODELPLANE_WEB_DIR)
  : fileURLToPath(new URL('../../../web/dist', import.meta.url));

export interface DashboardOptions {
  client: KubeClient;
  host?: string;
  port?: number;
  namespace?: string;
  cluster: string;
  user: string;
  readOnly?: boolean;
  feed?: DecisionFeed;
  /** the "send load" button's runner (`modelplane dev` only) */
  load?: LoadRunner;
  logger: Logger;
  /** default web/dist */
  staticDir?: string;
}

export interface Dashboard extends DashboardServer {
  state: DashboardState;
}

/** builds the front end when it is missing (a checkout where `npm ci` skipped scripts); false if it cannot */
export function ensureWebBuilt(log: Logger, dir = WEB_DIST): boolean {
  if (existsSync(`${dir}/index.html`)) return true;
  log.info('building the dashboard front end (first start)', { dir });
  const r = spawnSync(process.execPath, ['scripts/build-web.mjs'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0)
    log.warn('the dashboard front end could not be built; the API still works', { stderr: r.stderr?.slice(-2000) });
  return existsSync(`${dir}/index.html`);
}

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const staticDir = opts.staticDir ?? WEB_DIST;
  if (!opts.staticDir) ensureWebBuilt(opts.logger, staticDir);
  const state = await DashboardState.start({
    client: opts.client,
    logger: opts.logger,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
  });
  try {
    const server = await startDashboardServer({
      state,
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      staticDir,
      cluster: opts.cluster,
      user: opts.user,
      logger: opts.logger,
      ...(opts.readOnly ? { readOnly: true } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.feed ? { feed: opts.feed } : {}),
      ...(opts.load ? { load: opts.load } : {}),
    });
    return {
      ...server,
      state,
      async close() {
        await server.close();
        await state.stop();
      },
    };
  } catch (err) {
    await state.stop();
    throw err;
  }
}

export interface SignInDashboardOptions extends Omit<DashboardOptions, 'client' | 'feed' | 'load' | 'user'> {
  /** the dashboard's own credentials (in a cluster: its ServiceAccount), used only to review and impersonate */
  kubeconfig: KubeConfig;
}

/**
 * The dashboard for many people (`modelplane dashboard --auth tokenreview`): each signs in with their own
 * Kubernetes token and sees and writes with exactly their rights, through impersonation (docs/dashboard.md).
 */
export async function startSignInDashboard(opts: SignInDashboardOptions): Promise<DashboardServer> {
  const staticDir = opts.staticDir ?? WEB_DIST;
  if (!opts.staticDir) ensureWebBuilt(opts.logger, staticDir);
  const sessions = await UserSessions.start({
    kubeconfig: opts.kubeconfig,
    logger: opts.logger,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
  });
  try {
    const server = await startDashboardServer({
      sessions,
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      staticDir,
      cluster: opts.cluster,
      user: '',
      logger: opts.logger,
      ...(opts.readOnly ? { readOnly: true } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    });
    return {
      ...server,
      async close() {
        await server.close();
        await sessions.stop();
      },
    };
  } catch (err) {
    await sessions.stop();
    throw err;
  }
}

/**
 * The address a person opens: the server's URL with the token when one is needed. A server listening on
 * every address (0.0.0.0, ::) is opened at 127.0.0.1 on this machine; a browser cannot open 0.0.0.0.
 */
export function dashboardUrl(d: Pick<DashboardServer, 'url' | 'token'>): string {
  const url = new URL(d.url);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
  if (d.token) url.searchParams.set('token', d.token);
  return url.toString();
}

/** the line printed at start: the URL, with the token when one is needed */
export function dashboardBanner(d: Pick<DashboardServer, 'url' | 'token'>): string {
  const wildcard = /^http:\/\/(0\.0\.0\.0|\[::\]):/.test(d.url);
  const note = d.token
    ? `  (bound beyond loopback: the token is required${wildcard ? "; from elsewhere use this machine's address" : ''})`
    : '';
  return `dashboard: ${dashboardUrl(d)}${note}`;
}

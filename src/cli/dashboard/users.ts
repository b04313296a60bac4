// `modelplane dashboard --auth tokenreview` (docs/dashboard.md, "In a cluster"): each person signs in with
// their own Kubernetes bearer token. The API server says who it belongs to (a TokenReview, made with the
// dashboard's ServiceAccount), and everything that person sees or does goes through a client that
// impersonates exactly that user, groups, uid and extra attributes included — so the API server applies
// their RBAC, and the dashboard has no right of its own beyond reviewing tokens and impersonating.
import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { type Impersonation, KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { DashboardState } from './state.ts';

export interface UserSession {
  user: Impersonation;
  state: DashboardState;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  error?: string;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

export interface UserSessionsOptions {
  /** the dashboard's own credentials: used for TokenReviews and as the base of each impersonating client */
  kubeconfig: KubeConfig;
  logger: Logger;
  namespace?: string;
  /** how long a reviewed token is trusted before it is reviewed again (default 60 s) */
  reviewTtlMs?: number;
  /** a person's watches stop after this long without a request (default 10 min) */
  idleMs?: number;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export class UserSessions {
  private readonly reviews = new Map<string, { user: Impersonation | undefined; until: number }>();
  private readonly sessions = new Map<
    string,
    { state: Promise<DashboardState>; client: Promise<KubeClient>; used: number }
  >();
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly reviewer: KubeClient,
    private readonly opts: UserSessionsOptions,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), 30_000);
    this.sweeper.unref();
  }

  static async start(opts: UserSessionsOptions): Promise<UserSessions> {
    return new UserSessions(await KubeClient.create(opts.kubeconfig), opts);
  }

  /** who `token` belongs to, by a TokenReview (cached by the token's hash); undefined if not authenticated */
  async review(token: string): Promise<Impersonation | undefined> {
    const key = digest(token);
    const cached = this.reviews.get(key);
    if (cached && cached.until > Date.now()) return cached.user;
    const res = await this.reviewer.transport.request({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const status = ((res.body as { status?: TokenReviewStatus }).status ?? {}) as TokenReviewStatus;
    const u = status.user;
    const user: Impersonation | undefined =
      status.authenticated && u?.username
        ? {
            user: u.username,
            ...(u.groups?.length ? { groups: u.groups } : {}),
            ...(u.uid ? { uid: u.uid } : {}),
            ...(u.extra ? { extra: u.extra } : {}),
          }
        : undefined;
    this.reviews.set(key, { user, until: Date.now() + (this.opts.reviewTtlMs ?? 60_000) });
    return user;
  }

  /** the person's own view of the cluster, started on their first request */
  async session(token: string): Promise<UserSession | undefined> {
    const user = await this.review(token);
    if (!user) return undefined;
    const key = JSON.stringify(user);
    let s = this.sessions.get(key);
    if (!s) {
      const client = KubeClient.create(this.opts.kubeconfig, { impersonate: user });
      const state = client.then((c) =>
        DashboardState.start({
          client: c,
          logger: this.opts.logger.child({ user: user.user }),
          ...(this.opts.namespace ? { namespace: this.opts.namespace } : {}),
        }),
      );
      s = { client, state, used: Date.now() };
      this.sessions.set(key, s);
      // a start that failed is forgotten, so the next request tries again
      state.catch(() => this.sessions.delete(key));
    }
    s.used = Date.now();
    return { user, state: await s.state };
  }

  private async sweep(): Promise<void> {
    const idle = this.opts.idleMs ?? 600_000;
    for (const [key, s] of this.sessions)
      if (Date.now() - s.used > idle) {
        this.sessions.delete(key);
        await this.stopOne(s);
      }
    for (const [key, r] of this.reviews) if (r.until < Date.now()) this.reviews.delete(key);
  }

  private async stopOne(s: { state: Promise<DashboardState>; client: Promise<KubeClient> }): Promise<void> {
    await (await s.state.catch(() => undefined))?.stop();
    (await s.client.catch(() => undefined))?.close();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => this.stopOne(s)));
    this.reviewer.close();
  }
}

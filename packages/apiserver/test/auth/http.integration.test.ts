// Authentication and authorization at the HTTP front: 401 for anonymous requests, the tokens file,
// impersonation (and what the audit log records), TokenRequest, and the review APIs on the wire.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { partsOf } from '../../src/handle.ts';
import { type ApiServer, startApiServer } from '../../src/index.ts';

interface Reply {
  status: number;
  body: any;
}

function call(
  s: ApiServer,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string | string[]> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const token = opts.token === undefined ? s.adminToken : opts.token;
    const req = request(
      `${s.url}${path}`,
      {
        method,
        ca: s.caPem,
        headers: {
          ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
          ...(data ? { 'Content-Type': 'application/json' } : {}),
          ...(opts.headers ?? {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // plain text (health endpoints)
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

const BOT = 'system:serviceaccount:team:bot';

describe('auth over HTTP', () => {
  let s: ApiServer;
  let dir: string;
  let botToken: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auth-http-'));
    const tokensFile = join(dir, 'tokens.csv');
    writeFileSync(tokensFile, 'alice-token,alice,alice-uid,"devs,qa"\nreviewer-token,reviewer,r-uid\n');
    s = await startApiServer({ port: 0, tokensFile });
    assert.equal(
      (
        await call(s, 'POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await call(s, 'POST', '/api/v1/namespaces/team/serviceaccounts', {
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } },
        })
      ).status,
      201,
    );
    const tr = await call(s, 'POST', '/api/v1/namespaces/team/serviceaccounts/bot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    assert.equal(tr.status, 201);
    botToken = tr.body.status.token;
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses anonymous and unknown-token requests with 401, except health checks', async () => {
    for (const path of ['/api', '/version', '/api/v1/namespaces/default/configmaps', '/openapi/v3']) {
      const r = await call(s, 'GET', path, { token: null });
      assert.equal(r.status, 401, path);
      assert.deepEqual(r.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    assert.equal((await call(s, 'GET', '/api', { token: 'nope' })).status, 401);
    for (const path of ['/healthz', '/livez', '/readyz'])
      assert.equal((await call(s, 'GET', path, { token: null })).status, 200, path);
  });

  it('lets any authenticated user discover the API, but no more', async () => {
    for (const path of ['/version', '/api', '/apis', '/api/v1', '/apis/apps/v1', '/openapi/v3'])
      assert.equal((await call(s, 'GET', path, { token: botToken })).status, 200, path);
    const denied = await call(s, 'GET', '/api/v1/namespaces/team/configmaps', { token: botToken });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `configmaps is forbidden: User "${BOT}" cannot list resource "configmaps" in API group "" in the namespace "team"`,
      details: { kind: 'configmaps' },
    });
    const path = await call(s, 'GET', '/metrics', { token: botToken });
    assert.equal(path.status, 403);
    assert.equal(path.body.message, `forbidden: User "${BOT}" cannot get path "/metrics"`);
  });

  it('authenticates tokens-file users with their uid and groups', async () => {
    const r = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: 'alice-token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'alice', uid: 'alice-uid', groups: ['devs', 'qa', 'system:authenticated'] } },
    });
  });

  it('impersonates for admins, records the effective user in the audit log, and refuses others', async () => {
    s.clearAuditEntries();
    const r = await call(s, 'GET', '/api/v1/namespaces/team/configmaps', { headers: { 'Impersonate-User': BOT } });
    assert.equal(r.status, 403);
    assert.match(r.body.message, /User "system:serviceaccount:team:bot" cannot list resource "configmaps"/);
    const entry = s.auditEntries().find((e) => e.resource === 'configmaps');
    assert.equal(entry?.user, BOT);
    assert.equal(entry?.code, 403);

    const who = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: {},
      headers: {
        'Impersonate-User': 'carol',
        'Impersonate-Group': ['g1', 'g2'],
        'Impersonate-Uid': 'c-uid',
        'Impersonate-Extra-Scopes': ['read', 'write'],
        'Impersonate-Extra-Example.com%2fteam': 'blue',
      },
    });
    assert.deepEqual(who.body.status.userInfo, {
      username: 'carol',
      uid: 'c-uid',
      groups: ['g1', 'g2', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'example.com/team': ['blue'] },
    });

    const saGroups = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: {},
      headers: { 'Impersonate-User': BOT },
    });
    assert.deepEqual(saGroups.body.status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:team',
      'system:authenticated',
    ]);

    const refused = await call(s, 'GET', '/api', { token: botToken, headers: { 'Impersonate-User': 'alice' } });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      `users "alice" is forbidden: User "${BOT}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
    const sa = await call(s, 'GET', '/api', {
      token: 'alice-token',
      headers: { 'Impersonate-User': 'system:serviceaccount:kube-system:default' },
    });
    assert.equal(
      sa.body.message,
      'serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"',
    );
    const group = await call(s, 'GET', '/api', { headers: { 'Impersonate-Group': 'system:masters' } });
    assert.equal(group.status, 500, 'a group without a user is refused, as kube does');
  });

  it('lets a RoleBinding grant impersonation of one ServiceAccount', async () => {
    await call(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'as-bot' },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['bot'] }],
      },
    });
    await call(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'alice-as-bot' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'as-bot' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
    });
    const r = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: 'alice-token',
      body: {},
      headers: { 'Impersonate-User': BOT },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.status.userInfo.username, BOT);
  });

  it('authorizes a list pinned by fieldSelector=metadata.name as that name (resourceNames rules)', async () => {
    await call(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'one-cm' },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: ['cfg'] },
        ],
      },
    });
    await call(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'bot-one-cm' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-cm' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'team' }],
      },
    });
    const pinned = await call(s, 'GET', '/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dcfg', {
      token: botToken,
    });
    assert.equal(pinned.status, 200);
    assert.equal(pinned.body.kind, 'ConfigMapList');
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/team/configmaps', { token: botToken })).status, 403);
    const other = await call(s, 'GET', '/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dother', {
      token: botToken,
    });
    assert.equal(
      other.body.message,
      `configmaps "other" is forbidden: User "${BOT}" cannot list resource "configmaps" in API group "" in the namespace "team"`,
    );
  });

  it('answers SubjectAccessReview and LocalSubjectAccessReview with kube’s reasons and validation', async () => {
    const sar = (spec: unknown, token?: string) =>
      call(s, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        token,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
      });
    const allowed = await sar({
      user: 'alice',
      groups: ['devs'],
      resourceAttributes: { namespace: 'team', verb: 'impersonate', resource: 'serviceaccounts', name: 'bot' },
    });
    assert.equal(allowed.status, 201);
    assert.deepEqual(allowed.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "alice-as-bot/team" of Role "as-bot" to User "alice"',
    });
    const no = await sar({ user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    assert.deepEqual(no.body.status, { allowed: false });
    const bad = await sar({ resourceAttributes: { verb: 'get', resource: 'pods' } });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    const neither = await sar({ user: 'x' });
    assert.match(
      neither.body.message,
      /spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified/,
    );
    assert.equal(
      (await sar({ user: 'x', resourceAttributes: {} }, botToken)).status,
      403,
      'SubjectAccessReview needs its own permission',
    );

    const lsar = (ns: string, raNs: string) =>
      call(s, 'POST', `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          spec: { user: BOT, resourceAttributes: { namespace: raNs, verb: 'list', resource: 'configmaps' } },
        },
      });
    assert.deepEqual((await lsar('team', 'team')).body.status, { allowed: false });
    const mismatch = await lsar('team', 'other');
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, 'spec.resourceAttributes.namespace must match namespace: team');
    assert.equal((await call(s, 'GET', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).status, 405);
  });

  it('reviews tokens for the API and for other audiences', async () => {
    const review = (token: string, audiences?: string[]) =>
      call(s, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, ...(audiences ? { audiences } : {}) },
        },
      });
    const ok = await review(botToken);
    assert.equal(ok.body.status.authenticated, true);
    assert.equal(ok.body.status.user.username, BOT);
    assert.deepEqual(ok.body.status.audiences, ['https://kubernetes.default.svc.cluster.local']);
    assert.deepEqual((await review('alice-token')).body.status.user, {
      username: 'alice',
      uid: 'alice-uid',
      groups: ['devs', 'qa', 'system:authenticated'],
    });
    assert.deepEqual((await review('garbage')).body.status, { user: {} });

    const vault = await call(s, 'POST', '/api/v1/namespaces/team/serviceaccounts/bot/token', {
      body: { spec: { audiences: ['vault'], expirationSeconds: 7200 } },
    });
    assert.equal(vault.body.spec.expirationSeconds, 7200);
    const vaultToken = vault.body.status.token;
    assert.equal(
      (await call(s, 'GET', '/version', { token: vaultToken })).status,
      401,
      'a token for another audience is not an API credential',
    );
    assert.equal((await review(vaultToken, ['vault'])).body.status.authenticated, true);
    assert.match((await review(vaultToken)).body.status.error, /token audiences \["vault"\] is invalid/);
  });

  it('validates TokenRequest like kube', async () => {
    const tr = (name: string, body: unknown) =>
      call(s, 'POST', `/api/v1/namespaces/team/serviceaccounts/${name}/token`, { body });
    const short = await tr('bot', { spec: { expirationSeconds: 60 } });
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    assert.equal((await tr('ghost', { spec: {} })).body.message, 'serviceaccounts "ghost" not found');
    const renamed = await tr('bot', { metadata: { name: 'other' }, spec: {} });
    assert.equal(
      renamed.body.message,
      'TokenRequest.authentication.k8s.io "bot" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    );
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/team/serviceaccounts/bot/token')).status, 405);
  });

  it('builds a ServiceAccount kubeconfig that works', async () => {
    const cfg = parseYaml(s.serviceAccountKubeconfig('team', 'bot'));
    assert.equal(cfg.contexts[0].context.namespace, 'team');
    const token = cfg.users[0].user.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    assert.ok(claims.exp - claims.iat >= 365 * 24 * 3600);
    const who = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: {} });
    assert.equal(who.body.status.userInfo.username, BOT);
    assert.throws(() => s.serviceAccountKubeconfig('team', 'ghost'), /serviceaccounts "ghost" not found/);
  });
});

describe('ServiceAccount tokens across a restart with --data-dir', () => {
  it('keeps working, because the signing key follows the persisted CA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-restart-'));
    let s = await startApiServer({ port: 0, dataDir: dir });
    try {
      await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
        body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'keeper' } },
      });
      const token = (
        await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts/keeper/token', { body: { spec: {} } })
      ).body.status.token;
      await s.close();
      s = await startApiServer({ port: 0, dataDir: dir });
      const who = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: {} });
      assert.equal(who.status, 201);
      assert.equal(who.body.status.userInfo.username, 'system:serviceaccount:default:keeper');
      assert.equal(
        partsOf(s)
          .core.store.list('rbac.authorization.k8s.io/clusterroles')
          .filter((r) => r.metadata.name === 'cluster-admin').length,
        1,
        'defaults are not duplicated',
      );
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

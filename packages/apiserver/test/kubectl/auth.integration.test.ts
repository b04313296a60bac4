// Real kubectl against the embedded API server's authentication and RBAC: auth can-i (incl. --list and
// --as), auth whoami, create token + --token, 403s exactly as kubectl prints them, and a Role+RoleBinding
// that grants what was missing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../../src/testing/index.ts';

const SA = 'system:serviceaccount:team:bot';
const AS_BOT = `--as=${SA}`;

const roleAndBinding = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: config-reader, namespace: team }
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get, list, watch]
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: bot-reads-config, namespace: team }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-reader }
subjects:
  - kind: ServiceAccount
    name: bot
    namespace: team
`;

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: team }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx }] }
`;

describe('kubectl auth against the embedded API server', () => {
  let c: TestCluster;
  let token: string;

  before(async () => {
    c = await startTestCluster();
    await c.k(['create', 'namespace', 'team']);
    await c.k(['create', 'serviceaccount', 'bot', '-n', 'team']);
    await c.k(['apply', '-f', '-'], deployment);
  });
  after(async () => {
    await c?.stop();
  });

  it('auth can-i says yes to the admin and no to a ServiceAccount via --as', async () => {
    assert.equal((await c.k(['auth', 'can-i', 'create', 'deployments', '-n', 'team'])).trim(), 'yes');
    assert.equal((await c.k(['auth', 'can-i', '*', '*'])).trim(), 'yes');
    const no = await c.kubectl(['auth', 'can-i', 'list', 'configmaps', '-n', 'team', AS_BOT]);
    assert.equal(no.code, 1);
    assert.equal(no.stdout.trim(), 'no');
  });

  it('auth whoami shows the admin and the impersonated ServiceAccount', async () => {
    const admin = await c.k(['auth', 'whoami']);
    assert.match(admin, /Username\s+modelplane-admin/);
    assert.match(admin, /Groups\s+\[system:masters system:authenticated\]/);
    const bot = await c.k([
      'auth',
      'whoami',
      AS_BOT,
      '-o',
      'jsonpath={.status.userInfo.username} {.status.userInfo.groups}',
    ]);
    assert.equal(bot, `${SA} ["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"]`);
  });

  it('prints kube’s 403 for a ServiceAccount missing a rule', async () => {
    const r = await c.kubectl(['get', 'configmaps', '-n', 'team', AS_BOT]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      `Error from server (Forbidden): configmaps is forbidden: User "${SA}" cannot list resource "configmaps" in API group "" in the namespace "team"`,
    );
    const cluster = await c.kubectl(['get', 'namespaces', AS_BOT]);
    assert.equal(
      cluster.stderr.trim(),
      `Error from server (Forbidden): namespaces is forbidden: User "${SA}" cannot list resource "namespaces" in API group "" at the cluster scope`,
    );
  });

  it('create token mints a token kubectl can use with --token', async () => {
    token = (await c.k(['create', 'token', 'bot', '-n', 'team', '--duration=2h'])).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    assert.equal(claims.sub, SA);
    assert.equal(claims.exp - claims.iat, 7200);
    assert.deepEqual(claims['kubernetes.io'].serviceaccount.name, 'bot');
    const who = await c.k(['auth', 'whoami', '--token', token]);
    assert.match(who, new RegExp(`Username\\s+${SA}`));
    assert.match(who, /Extra: authentication.kubernetes.io\/credential-id\s+\[JTI=/);
    const denied = await c.kubectl(['get', 'configmaps', '-n', 'team', '--token', token]);
    assert.equal(
      denied.stderr.trim(),
      `Error from server (Forbidden): configmaps is forbidden: User "${SA}" cannot list resource "configmaps" in API group "" in the namespace "team"`,
    );
    const tooShort = await c.kubectl(['create', 'token', 'bot', '-n', 'team', '--duration=1m']);
    assert.match(
      tooShort.stderr,
      /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
    );
  });

  it('a Role and RoleBinding grant exactly what they say', async () => {
    await c.k(['apply', '-f', '-'], roleAndBinding);
    await c.k(['create', 'configmap', 'settings', '-n', 'team', '--from-literal=a=1']);
    assert.match(await c.k(['get', 'configmaps', '-n', 'team', '--token', token]), /settings/);
    assert.equal((await c.k(['auth', 'can-i', 'watch', 'configmaps', '-n', 'team', AS_BOT])).trim(), 'yes');
    assert.equal(
      (await c.kubectl(['auth', 'can-i', 'delete', 'configmaps', '-n', 'team', AS_BOT])).stdout.trim(),
      'no',
    );
    assert.equal(
      (await c.kubectl(['auth', 'can-i', 'list', 'configmaps', '-n', 'default', AS_BOT])).stdout.trim(),
      'no',
    );
    const del = await c.kubectl(['delete', 'configmap', 'settings', '-n', 'team', '--token', token]);
    assert.equal(
      del.stderr.trim(),
      `Error from server (Forbidden): configmaps "settings" is forbidden: User "${SA}" cannot delete resource "configmaps" in API group "" in the namespace "team"`,
    );
    const scale = await c.kubectl(['scale', 'deployment', 'web', '-n', 'team', '--replicas=2', '--token', token]);
    assert.equal(
      scale.stderr.trim(),
      `Error from server (Forbidden): deployments.apps "web" is forbidden: User "${SA}" cannot patch resource "deployments/scale" in API group "apps" in the namespace "team"`,
    );
    assert.equal(
      (
        await c.kubectl(['auth', 'can-i', 'get', 'deployments', '--subresource=scale', '-n', 'team', AS_BOT])
      ).stdout.trim(),
      'no',
    );
    const list = await c.k(['auth', 'can-i', '--list', '-n', 'team', '--token', token]);
    assert.match(list, /^configmaps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(list, /^deployments\.apps\s+\[\]\s+\[\]\s+\[get\]$/m);
    assert.match(list, /^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
  });

  it('the audit log records the impersonated user', async () => {
    c.server.clearAuditEntries();
    await c.k(['get', 'configmaps', '-n', 'team', AS_BOT]);
    const e = c.server.auditEntries().find((x) => x.resource === 'configmaps' && x.verb === 'list');
    assert.equal(e?.user, SA);
  });

  it('a deleted ServiceAccount’s token stops working', async () => {
    await c.k(['delete', 'serviceaccount', 'bot', '-n', 'team']);
    const r = await c.kubectl(['get', 'configmaps', '-n', 'team', '--token', token]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
    await c.k(['create', 'serviceaccount', 'bot', '-n', 'team']);
    assert.equal(
      (await c.kubectl(['get', 'configmaps', '-n', 'team', '--token', token])).code,
      1,
      'a recreated ServiceAccount does not revive old tokens',
    );
  });
});

// RBAC rule matching, subject matching and kube's 403 wording, table-driven against the behaviour of
// k8s.io/kubernetes/pkg/apis/rbac/v1 helpers and responsewriters.Forbidden.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbidden, forbiddenMessage } from '../../src/auth/forbidden.ts';
import { compactRules, compactString, covers } from '../../src/auth/rbac/escalation.ts';
import {
  compileRule,
  describeSubject,
  type PolicyRule,
  ruleAllows,
  subjectMatches,
} from '../../src/auth/rbac/rules.ts';
import type { AuthzAttributes } from '../../src/auth/types.ts';
import { splitServiceAccountUsername } from '../../src/auth/types.ts';

const res = (verb: string, group: string, resource: string, extra: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  isResourceRequest: true,
  path: '',
  verb,
  group,
  version: 'v1',
  resource,
  namespace: 'ns',
  ...extra,
});
const url = (verb: string, path: string): AuthzAttributes => ({
  isResourceRequest: false,
  path,
  verb,
  group: '',
  version: '',
});

describe('RBAC rule matching', () => {
  const cases: { name: string; rule: PolicyRule; attrs: AuthzAttributes; allowed: boolean }[] = [
    {
      name: 'exact verb/group/resource',
      rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'] },
      attrs: res('list', '', 'configmaps'),
      allowed: true,
    },
    {
      name: 'other verb',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      attrs: res('list', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'other group',
      rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] },
      attrs: res('get', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'other resource',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      attrs: res('get', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'verb *',
      rule: { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] },
      attrs: res('deletecollection', '', 'configmaps'),
      allowed: true,
    },
    {
      name: 'group *',
      rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      attrs: res('get', 'apps', 'deployments'),
      allowed: true,
    },
    {
      name: 'resource * covers subresources',
      rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['*'] },
      attrs: res('get', 'apps', 'deployments', { subresource: 'scale' }),
      allowed: true,
    },
    {
      name: 'resource alone does not cover its subresource',
      rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] },
      attrs: res('get', 'apps', 'deployments', { subresource: 'scale' }),
      allowed: false,
    },
    {
      name: 'resource/subresource',
      rule: { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] },
      attrs: res('update', 'apps', 'deployments', { subresource: 'scale' }),
      allowed: true,
    },
    {
      name: 'resource/subresource does not cover the resource',
      rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] },
      attrs: res('get', 'apps', 'deployments'),
      allowed: false,
    },
    {
      name: '*/status covers every status',
      rule: { verbs: ['patch'], apiGroups: ['*'], resources: ['*/status'] },
      attrs: res('patch', 'example.com', 'widgets', { subresource: 'status' }),
      allowed: true,
    },
    {
      name: '*/status does not cover scale',
      rule: { verbs: ['patch'], apiGroups: ['*'], resources: ['*/status'] },
      attrs: res('patch', 'apps', 'deployments', { subresource: 'scale' }),
      allowed: false,
    },
    {
      name: '*/status does not cover the main resource',
      rule: { verbs: ['patch'], apiGroups: ['*'], resources: ['*/status'] },
      attrs: res('patch', 'apps', 'deployments'),
      allowed: false,
    },
    {
      name: 'resource/* is not a wildcard',
      rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/*'] },
      attrs: res('get', 'apps', 'deployments', { subresource: 'scale' }),
      allowed: false,
    },
    {
      name: 'resourceNames match',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] },
      attrs: res('get', '', 'configmaps', { name: 'b' }),
      allowed: true,
    },
    {
      name: 'resourceNames other name',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      attrs: res('get', '', 'configmaps', { name: 'c' }),
      allowed: false,
    },
    {
      name: 'resourceNames never allow list without a name',
      rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      attrs: res('list', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'resourceNames never allow create',
      rule: { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      attrs: res('create', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'rule without apiGroups matches nothing',
      rule: { verbs: ['get'], resources: ['configmaps'] },
      attrs: res('get', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'URL rule does not grant resources',
      rule: { verbs: ['*'], nonResourceURLs: ['*'] },
      attrs: res('get', '', 'configmaps'),
      allowed: false,
    },
    {
      name: 'URL exact',
      rule: { verbs: ['get'], nonResourceURLs: ['/version'] },
      attrs: url('get', '/version'),
      allowed: true,
    },
    {
      name: 'URL other verb',
      rule: { verbs: ['get'], nonResourceURLs: ['/version'] },
      attrs: url('post', '/version'),
      allowed: false,
    },
    {
      name: 'URL not a prefix without *',
      rule: { verbs: ['get'], nonResourceURLs: ['/api'] },
      attrs: url('get', '/api/v1'),
      allowed: false,
    },
    {
      name: 'URL prefix with trailing *',
      rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      attrs: url('get', '/apis/apps/v1'),
      allowed: true,
    },
    {
      name: 'URL prefix * needs the slash',
      rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      attrs: url('get', '/apis'),
      allowed: false,
    },
    {
      name: 'URL prefix without slash',
      rule: { verbs: ['get'], nonResourceURLs: ['/healthz*'] },
      attrs: url('get', '/healthzfoo'),
      allowed: true,
    },
    {
      name: 'URL *',
      rule: { verbs: ['*'], nonResourceURLs: ['*'] },
      attrs: url('delete', '/debug/faults/1'),
      allowed: true,
    },
    {
      name: 'resource rule does not grant URLs',
      rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      attrs: url('get', '/version'),
      allowed: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(ruleAllows(compileRule(c.rule), c.attrs), c.allowed));
  }
});

describe('RBAC subjects', () => {
  const sa = 'system:serviceaccount:team:bot';
  const cases: {
    name: string;
    subject: Parameters<typeof subjectMatches>[0];
    user: string;
    groups?: string[];
    ns?: string;
    matches: boolean;
    described: string;
  }[] = [
    {
      name: 'User by name',
      subject: { kind: 'User', name: 'alice' },
      user: 'alice',
      matches: true,
      described: 'User "alice"',
    },
    {
      name: 'User other name',
      subject: { kind: 'User', name: 'alice' },
      user: 'bob',
      matches: false,
      described: 'User "alice"',
    },
    {
      name: 'Group membership',
      subject: { kind: 'Group', name: 'devs' },
      user: 'bob',
      groups: ['devs'],
      matches: true,
      described: 'Group "devs"',
    },
    {
      name: 'Group not a member',
      subject: { kind: 'Group', name: 'devs' },
      user: 'devs',
      groups: [],
      matches: false,
      described: 'Group "devs"',
    },
    {
      name: 'ServiceAccount with namespace',
      subject: { kind: 'ServiceAccount', name: 'bot', namespace: 'team' },
      user: sa,
      matches: true,
      described: 'ServiceAccount "bot/team"',
    },
    {
      name: 'ServiceAccount other namespace',
      subject: { kind: 'ServiceAccount', name: 'bot', namespace: 'other' },
      user: sa,
      matches: false,
      described: 'ServiceAccount "bot/other"',
    },
    {
      name: 'ServiceAccount defaults to the binding namespace',
      subject: { kind: 'ServiceAccount', name: 'bot' },
      user: sa,
      ns: 'team',
      matches: true,
      described: 'ServiceAccount "bot/team"',
    },
    {
      name: 'ServiceAccount without any namespace never matches',
      subject: { kind: 'ServiceAccount', name: 'bot' },
      user: sa,
      ns: '',
      matches: false,
      described: 'ServiceAccount "bot/"',
    },
    {
      name: 'unknown kind',
      subject: { kind: 'Robot', name: 'bot' },
      user: 'bot',
      matches: false,
      described: 'Robot "bot"',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(subjectMatches(c.subject, c.user, c.groups ?? [], c.ns ?? ''), c.matches);
      assert.equal(describeSubject(c.subject, c.ns ?? ''), c.described);
    });
  }

  it('parses ServiceAccount usernames like serviceaccount.SplitUsername', () => {
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:team:bot'), { namespace: 'team', name: 'bot' });
    for (const bad of [
      'system:serviceaccount:team',
      'system:serviceaccount:team:bot:x',
      'system:serviceaccount:Team:bot',
      'system:serviceaccount::bot',
      'alice',
    ]) {
      assert.equal(splitServiceAccountUsername(bad), undefined, bad);
    }
  });
});

describe('403 Forbidden wording', () => {
  const bot = { username: 'system:serviceaccount:ns:sa', groups: [] };
  const cases: {
    name: string;
    attrs: AuthzAttributes;
    reason?: string;
    message: string;
    details: Record<string, string>;
  }[] = [
    {
      name: 'namespaced list',
      attrs: res('list', '', 'configmaps'),
      message:
        'configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "configmaps" in API group "" in the namespace "ns"',
      details: { kind: 'configmaps' },
    },
    {
      name: 'named subresource in a group',
      attrs: res('get', 'apps', 'deployments', { subresource: 'scale', name: 'web' }),
      message:
        'deployments.apps "web" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns"',
      details: { kind: 'deployments', group: 'apps', name: 'web' },
    },
    {
      name: 'cluster scope',
      attrs: res('list', '', 'namespaces', { namespace: undefined }),
      message:
        'namespaces is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "namespaces" in API group "" at the cluster scope',
      details: { kind: 'namespaces' },
    },
    {
      name: 'with an RBAC reason',
      attrs: res('get', '', 'secrets', { name: 's' }),
      reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found',
      message:
        'secrets "s" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "secrets" in API group "" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "gone" not found',
      details: { kind: 'secrets', name: 's' },
    },
    {
      name: 'non-resource path',
      attrs: url('post', '/debug/faults'),
      message: 'forbidden: User "system:serviceaccount:ns:sa" cannot post path "/debug/faults"',
      details: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const err = forbidden(bot, c.attrs, c.reason);
      assert.equal(err.code, 403);
      assert.equal(err.reason, 'Forbidden');
      assert.equal(err.message, c.message);
      assert.deepEqual(err.toStatus().details, c.details);
    });
  }

  it('quotes names the way Go does', () => {
    assert.equal(
      forbiddenMessage({ username: 'we"ird', groups: [] }, url('get', '/x')),
      'User "we\\"ird" cannot get path "/x"',
    );
  });
});

describe('RBAC escalation coverage', () => {
  const cases: { name: string; owner: PolicyRule[]; wanted: PolicyRule[]; missing: string[] }[] = [
    {
      name: 'identical rule',
      owner: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      wanted: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      missing: [],
    },
    {
      name: 'a missing verb',
      owner: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      wanted: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete', 'patch'] }],
      missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["delete" "patch"]}'],
    },
    {
      name: 'wildcards cover everything',
      owner: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      wanted: [{ apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['update'], resourceNames: ['web'] }],
      missing: [],
    },
    {
      name: '*/status covers a status subresource only',
      owner: [{ apiGroups: ['apps'], resources: ['*/status'], verbs: ['get'] }],
      wanted: [{ apiGroups: ['apps'], resources: ['deployments/status', 'deployments'], verbs: ['get'] }],
      missing: ['{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}'],
    },
    {
      name: 'named owner rule does not cover unnamed',
      owner: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['a'] }],
      wanted: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      missing: ['{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}'],
    },
    {
      name: 'unnamed owner rule covers names',
      owner: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      wanted: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['a', 'b'] }],
      missing: [],
    },
    {
      name: 'names are kept apart',
      owner: [],
      wanted: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['a', 'b'] }],
      missing: [
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get"]}',
      ],
    },
    {
      name: 'URL prefixes',
      owner: [{ nonResourceURLs: ['/apis/*'], verbs: ['get'] }],
      wanted: [{ nonResourceURLs: ['/apis/apps', '/metrics'], verbs: ['get'] }],
      missing: ['{NonResourceURLs:["/metrics"], Verbs:["get"]}'],
    },
    {
      name: 'several groups and resources',
      owner: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }],
      wanted: [{ apiGroups: ['', 'apps'], resources: ['deployments'], verbs: ['get'] }],
      missing: ['{APIGroups:[""], Resources:["deployments"], Verbs:["get"]}'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { covered, missing } = covers(c.owner, c.wanted);
      assert.equal(covered, c.missing.length === 0);
      assert.deepEqual([...new Set(compactRules(missing).map(compactString))].sort(), c.missing);
    });
  }
});

// Which requests reach an admission webhook: every rule dimension (operations, groups, versions, resources
// with subresources and wildcards, scope), namespaceSelector, objectSelector, and the exemption of webhook
// configurations, against a real HTTPS webhook server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../../src/index.ts';
import { raw } from '../../src/testing/index.ts';
import { allow, configuration, startWebhookServer, type WebhookServer, webhookEntry } from './fixture.ts';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const rule = (resources: string[], operations = ['CREATE'], apiGroups = [''], extra: Record<string, unknown> = {}) => ({
  operations,
  apiGroups,
  apiVersions: ['v1'],
  resources,
  ...extra,
});
const cm = (name: string, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data: { a: '1' },
});

describe('admission webhook matching', () => {
  let s: ApiServer;
  let hooks: WebhookServer;
  const must = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const res = await raw(s, method, path, body, contentType ? { contentType } : {});
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.json();
  };
  const createCm = (ns: string, name: string, labels?: Record<string, string>) =>
    must('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name, labels));
  const updatePodAndStatus = async (name: string) => {
    const pod = await must('GET', `/api/v1/namespaces/rules/pods/${name}`);
    pod.metadata.labels = { touched: String(Date.now()) };
    const updated = await must('PUT', `/api/v1/namespaces/rules/pods/${name}`, pod);
    updated.status = { phase: 'Running', message: String(Date.now()) };
    await must('PUT', `/api/v1/namespaces/rules/pods/${name}/status`, updated);
  };

  before(async () => {
    s = await startApiServer({ port: 0 });
    hooks = await startWebhookServer();
    for (const [name, team] of [
      ['rules', 'x'],
      ['ns-a', 'a'],
      ['ns-b', 'b'],
    ]) {
      await must('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { team } },
      });
    }
    for (const p of ['p1', 'p2', 'p3']) {
      await must('POST', '/api/v1/namespaces/rules/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: p },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
    }
    await must('POST', '/apis/apps/v1/namespaces/rules/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
  });
  after(async () => {
    await s.close();
    await hooks.close();
  });

  interface Case {
    name: string;
    webhook: Record<string, unknown>;
    act: (i: number) => Promise<unknown>;
    calls: number;
    check?: (bodies: any[]) => void;
  }
  const cases: Case[] = [
    {
      name: 'a configmaps CREATE rule sees a create, with the full AdmissionReview request',
      webhook: { rules: [rule(['configmaps'])] },
      act: (i) => createCm('rules', `c${i}`),
      calls: 1,
      check: ([b]) => {
        assert.equal(b.apiVersion, 'admission.k8s.io/v1');
        assert.equal(b.kind, 'AdmissionReview');
        const r = b.request;
        assert.match(r.uid, /^[0-9a-f-]{36}$/);
        assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
        assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
        assert.deepEqual(r.requestKind, r.kind);
        assert.deepEqual(r.requestResource, r.resource);
        assert.equal(r.subResource, undefined);
        assert.equal(r.operation, 'CREATE');
        assert.equal(r.namespace, 'rules');
        assert.equal(r.name, 'c0');
        assert.equal(r.object.metadata.name, 'c0');
        assert.equal(r.object.data.a, '1');
        assert.equal(r.oldObject, null);
        assert.equal(r.dryRun, false);
        assert.equal(r.options.kind, 'CreateOptions');
        assert.ok(r.userInfo.groups.includes('system:masters'));
      },
    },
    {
      name: 'an UPDATE-only rule ignores creates',
      webhook: { rules: [rule(['configmaps'], ['UPDATE'])] },
      act: (i) => createCm('rules', `c${i}`),
      calls: 0,
    },
    {
      name: 'an UPDATE rule sees the old object too',
      webhook: { rules: [rule(['configmaps'], ['UPDATE'])] },
      act: async (i) => {
        const c = await createCm('rules', `c${i}`);
        c.data = { a: '2' };
        await must('PUT', `/api/v1/namespaces/rules/configmaps/c${i}`, c);
      },
      calls: 1,
      check: ([b]) => {
        assert.equal(b.request.operation, 'UPDATE');
        assert.equal(b.request.oldObject.data.a, '1');
        assert.equal(b.request.object.data.a, '2');
        assert.equal(b.request.options.kind, 'UpdateOptions');
      },
    },
    {
      name: 'a DELETE rule gets the old object and no object',
      webhook: { rules: [rule(['configmaps'], ['DELETE'])] },
      act: async (i) => {
        await createCm('rules', `c${i}`);
        await must('DELETE', `/api/v1/namespaces/rules/configmaps/c${i}`);
      },
      calls: 1,
      check: ([b]) => {
        assert.equal(b.request.operation, 'DELETE');
        assert.equal(b.request.object, null);
        assert.equal(b.request.oldObject.metadata.name, 'c3');
        assert.equal(b.request.options.kind, 'DeleteOptions');
      },
    },
    {
      name: 'pods/status matches only the status subresource',
      webhook: { rules: [rule(['pods/status'], ['UPDATE'])] },
      act: () => updatePodAndStatus('p1'),
      calls: 1,
      check: ([b]) => {
        assert.equal(b.request.subResource, 'status');
        assert.equal(b.request.requestSubResource, 'status');
        assert.deepEqual(b.request.kind, { group: '', version: 'v1', kind: 'Pod' });
        assert.equal(b.request.object.status.phase, 'Running');
      },
    },
    {
      name: 'pods matches the pod but not its status',
      webhook: { rules: [rule(['pods'], ['UPDATE'])] },
      act: () => updatePodAndStatus('p2'),
      calls: 1,
      check: ([b]) => assert.equal(b.request.subResource, undefined),
    },
    {
      name: '*/* matches resources and subresources',
      webhook: { rules: [rule(['*/*'], ['UPDATE'])] },
      act: () => updatePodAndStatus('p3'),
      calls: 2,
    },
    {
      name: "pods/* matches the pod and every pod subresource (kube's rule)",
      webhook: { rules: [rule(['pods/*'], ['UPDATE'])] },
      act: () => updatePodAndStatus('p1'),
      calls: 2,
    },
    {
      name: '*/status matches the status subresource of any resource',
      webhook: { rules: [rule(['*/status'], ['UPDATE'])] },
      act: () => updatePodAndStatus('p2'),
      calls: 1,
    },
    {
      name: 'deployments/scale sends an autoscaling/v1 Scale',
      webhook: { rules: [rule(['deployments/scale'], ['UPDATE'], ['apps'])] },
      act: () =>
        must(
          'PATCH',
          '/apis/apps/v1/namespaces/rules/deployments/web/scale',
          { spec: { replicas: 3 } },
          'application/merge-patch+json',
        ),
      calls: 1,
      check: ([b]) => {
        assert.deepEqual(b.request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
        assert.deepEqual(b.request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
        assert.equal(b.request.subResource, 'scale');
        assert.equal(b.request.object.spec.replicas, 3);
        assert.equal(b.request.oldObject.spec.replicas, 1);
      },
    },
    {
      name: 'apiGroups must match',
      webhook: { rules: [rule(['*'], ['CREATE'], ['apps'])] },
      act: async (i) => {
        await createCm('rules', `c${i}`);
        await must('POST', '/apis/coordination.k8s.io/v1/namespaces/rules/leases', {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: `l${i}` },
        });
      },
      calls: 0,
    },
    {
      name: 'apiVersions must match',
      webhook: { rules: [{ ...rule(['configmaps']), apiVersions: ['v2'] }] },
      act: (i) => createCm('rules', `c${i}`),
      calls: 0,
    },
    {
      name: 'scope Cluster takes cluster-scoped objects and Namespaces',
      webhook: { rules: [rule(['*'], ['CREATE'], ['', 'rbac.authorization.k8s.io'], { scope: 'Cluster' })] },
      act: async (i) => {
        await must('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `scope-${i}` },
        });
        await must('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `cr-${i}` },
          rules: [],
        });
        await createCm('rules', `c${i}`);
      },
      calls: 2,
      check: (bodies) => assert.deepEqual(bodies.map((b) => b.request.kind.kind).sort(), ['ClusterRole', 'Namespace']),
    },
    {
      name: 'scope Namespaced takes namespaced objects only',
      webhook: { rules: [rule(['*'], ['CREATE'], ['', 'rbac.authorization.k8s.io'], { scope: 'Namespaced' })] },
      act: async (i) => {
        await must('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `scope-${i}` },
        });
        await must('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `cr-${i}` },
          rules: [],
        });
        await createCm('rules', `c${i}`);
      },
      calls: 1,
      check: ([b]) => assert.equal(b.request.kind.kind, 'ConfigMap'),
    },
    {
      name: "operations '*' takes every operation",
      webhook: { rules: [rule(['configmaps'], ['*'])] },
      act: async (i) => {
        const c = await createCm('rules', `c${i}`);
        await must('PUT', `/api/v1/namespaces/rules/configmaps/c${i}`, { ...c, data: { a: '9' } });
        await must('DELETE', `/api/v1/namespaces/rules/configmaps/c${i}`);
      },
      calls: 3,
      check: (bodies) =>
        assert.deepEqual(
          bodies.map((b) => b.request.operation),
          ['CREATE', 'UPDATE', 'DELETE'],
        ),
    },
    {
      name: "namespaceSelector matches the namespace's labels",
      webhook: { rules: [rule(['configmaps'])], namespaceSelector: { matchLabels: { team: 'a' } } },
      act: async (i) => {
        await createCm('ns-a', `c${i}`);
        await createCm('ns-b', `c${i}`);
      },
      calls: 1,
      check: ([b]) => assert.equal(b.request.namespace, 'ns-a'),
    },
    {
      name: 'namespaceSelector never excludes cluster-scoped objects',
      webhook: {
        rules: [rule(['clusterroles'], ['CREATE'], ['rbac.authorization.k8s.io'])],
        namespaceSelector: { matchLabels: { team: 'nobody' } },
      },
      act: (i) =>
        must('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `ns-sel-${i}` },
          rules: [],
        }),
      calls: 1,
    },
    {
      name: "namespaceSelector sees a Namespace's own labels when it is written",
      webhook: {
        rules: [rule(['namespaces'])],
        namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a', 'c'] }] },
      },
      act: async (i) => {
        await must('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `sel-c-${i}`, labels: { team: 'c' } },
        });
        await must('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `sel-d-${i}`, labels: { team: 'd' } },
        });
      },
      calls: 1,
      check: ([b]) => assert.equal(b.request.name, 'sel-c-17'),
    },
    {
      name: 'objectSelector matches the new object',
      webhook: { rules: [rule(['configmaps'])], objectSelector: { matchLabels: { app: 'x' } } },
      act: async (i) => {
        await createCm('rules', `c${i}-yes`, { app: 'x' });
        await createCm('rules', `c${i}-no`, { app: 'y' });
      },
      calls: 1,
      check: ([b]) => assert.equal(b.request.name, 'c18-yes'),
    },
    {
      name: 'objectSelector matches when only the old object had the labels',
      webhook: { rules: [rule(['configmaps'], ['UPDATE'])], objectSelector: { matchLabels: { app: 'x' } } },
      act: async (i) => {
        const c = await createCm('rules', `c${i}`, { app: 'x' });
        await must('PUT', `/api/v1/namespaces/rules/configmaps/c${i}`, {
          ...c,
          metadata: { ...c.metadata, labels: {} },
        });
      },
      calls: 1,
    },
    {
      name: 'webhook configurations themselves are never sent to webhooks',
      webhook: { rules: [rule(['*'], ['*'], ['admissionregistration.k8s.io'])] },
      act: (i) => must('POST', VWC, configuration('Validating', `other-${i}`, [])),
      calls: 0,
    },
  ];

  cases.forEach((c, i) => {
    it(c.name, async () => {
      const path = `/rules/${i}`;
      hooks.on(path, (review) => allow(review));
      await must(
        'POST',
        VWC,
        configuration('Validating', `rules-${i}`, [webhookEntry(hooks, `case${i}.example.com`, path, c.webhook)]),
      );
      try {
        await c.act(i);
        // the server's own controllers write too (a namespace's default ServiceAccount and root CA ConfigMap)
        const bodies = hooks
          .at(path)
          .map((r) => r.body)
          .filter((b) => b.request.resource.resource !== 'serviceaccounts' && b.request.name !== 'kube-root-ca.crt');
        assert.equal(
          bodies.length,
          c.calls,
          `calls to ${path}: ${JSON.stringify(bodies.map((b) => [b.request.operation, b.request.resource.resource, b.request.subResource]))}`,
        );
        c.check?.(bodies);
      } finally {
        await must('DELETE', `${VWC}/rules-${i}`);
      }
    });
  });
});

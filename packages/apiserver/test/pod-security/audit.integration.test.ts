// PodSecurity's audit annotations and exemptions, calling the plugin the way the write path does (the
// audit log records them per request; most cases here call the plugin directly and read the attributes' sink): the keys
// kube-apiserver records (pod-security.kubernetes.io/enforce-policy, …/audit-violations, …/error,
// …/exempt), and that custom resources are not looked at.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type PodSecurityAttributes,
  type PodSecurityConfig,
  podSecurityAdmission,
} from '../../src/admission/pod-security/index.ts';
import type { StatusError } from '../../src/errors.ts';
import { builtinResourceTypes } from '../../src/resource-types/builtin-types.ts';
import type { ResourceType } from '../../src/resource-types/resource-type.ts';
import { ObjectStore } from '../../src/storage/store.ts';
import type { KubeObject } from '../../src/types.ts';

const types = builtinResourceTypes();
const rt = (plural: string, group = ''): ResourceType => types.find((t) => t.plural === plural && t.group === group)!;

function storeWith(namespaces: Record<string, Record<string, string>>): ObjectStore {
  const store = new ObjectStore();
  for (const [name, labels] of Object.entries(namespaces)) {
    store.commit('/namespaces', 'ADDED', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  }
  return store;
}

const bare = (name = 'p', spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

function attrs(resource: ResourceType, object: KubeObject, user = 'alice'): PodSecurityAttributes {
  return {
    rt: resource,
    version: 'v1',
    operation: 'CREATE',
    namespace: 'ns',
    name: object.metadata.name!,
    object,
    user: { username: user, groups: ['system:authenticated'] },
    dryRun: false,
    warnings: [],
    auditAnnotations: {},
  };
}

function run(
  labels: Record<string, string>,
  a: PodSecurityAttributes,
  config?: PodSecurityConfig,
): { annotations: Record<string, string>; warnings: string[]; error?: StatusError } {
  const validate = podSecurityAdmission(storeWith({ ns: labels }), config);
  try {
    validate(a);
    return { annotations: a.auditAnnotations!, warnings: a.warnings };
  } catch (e) {
    return { annotations: a.auditAnnotations!, warnings: a.warnings, error: e as StatusError };
  }
}

const BARE_RESTRICTED =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
  'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
  'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
  'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity audit annotations', () => {
  it('every pod write in a privileged namespace records the enforced policy', () => {
    const r = run({}, attrs(rt('pods'), bare()));
    assert.deepEqual(r.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
  });

  it('the audit level records violations without refusing or warning', () => {
    const r = run({ 'pod-security.kubernetes.io/audit': 'restricted' }, attrs(rt('pods'), bare()));
    assert.equal(r.error, undefined);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.annotations, {
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': `would violate PodSecurity "restricted:latest": ${BARE_RESTRICTED}`,
    });
  });

  it('a refused pod keeps its annotations; workloads are audited but carry no enforce-policy', () => {
    const refused = run(
      { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/audit': 'baseline' },
      attrs(rt('pods'), bare('p', { hostIPC: true })),
    );
    assert.equal(refused.error?.code, 403);
    assert.deepEqual(refused.annotations, {
      'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
      'pod-security.kubernetes.io/audit-violations':
        'would violate PodSecurity "baseline:latest": host namespaces (hostIPC)',
    });
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'ns' },
      spec: { template: { spec: bare().spec } },
    };
    const audited = run(
      {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/audit': 'restricted',
        'pod-security.kubernetes.io/audit-version': 'v1.25',
      },
      attrs(rt('deployments', 'apps'), deployment),
    );
    assert.equal(audited.error, undefined);
    assert.deepEqual(audited.annotations, {
      'pod-security.kubernetes.io/audit-violations': `would violate PodSecurity "restricted:v1.25": ${BARE_RESTRICTED}`,
    });
  });

  it('invalid labels are reported as an error annotation, and the enforce level is taken as restricted', () => {
    const r = run({ 'pod-security.kubernetes.io/enforce': 'strict' }, attrs(rt('pods'), bare()));
    assert.equal(r.error?.code, 403);
    assert.deepEqual(r.annotations, {
      'pod-security.kubernetes.io/error':
        'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
      'pod-security.kubernetes.io/enforce-policy': 'restricted:latest',
    });
  });

  it('pod updates that change no image, seccomp annotation or container are not evaluated (no annotations)', () => {
    const a = attrs(rt('pods'), { ...bare(), metadata: { ...bare().metadata, labels: { x: 'y' } } });
    a.operation = 'UPDATE';
    a.oldObject = bare();
    const r = run({ 'pod-security.kubernetes.io/enforce': 'restricted' }, a);
    assert.equal(r.error, undefined);
    assert.deepEqual(r.annotations, {});
  });
});

describe('PodSecurity exemptions', () => {
  const labels = {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/warn': 'restricted',
  };

  it('none by default: the same pod is refused for any user', () => {
    assert.equal(
      run(labels, attrs(rt('pods'), bare(), 'system:serviceaccount:kube-system:replicaset-controller')).error?.code,
      403,
    );
  });

  it('configured namespaces, users and runtime classes are skipped, and the audit event says why', () => {
    const byNamespace = run(labels, attrs(rt('pods'), bare()), { exemptions: { namespaces: ['ns'] } });
    assert.equal(byNamespace.error, undefined);
    assert.deepEqual(byNamespace.annotations, { 'pod-security.kubernetes.io/exempt': 'namespace' });
    const byUser = run(labels, attrs(rt('pods'), bare(), 'ci-bot'), { exemptions: { usernames: ['ci-bot'] } });
    assert.deepEqual(byUser.annotations, { 'pod-security.kubernetes.io/exempt': 'user' });
    const byRuntimeClass = run(labels, attrs(rt('pods'), bare('p', { runtimeClassName: 'kata' })), {
      exemptions: { runtimeClasses: ['kata'] },
    });
    assert.equal(byRuntimeClass.error, undefined);
    assert.deepEqual(byRuntimeClass.warnings, []);
    assert.deepEqual(byRuntimeClass.annotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
  });

  it('custom resources are never looked at, whatever they embed', () => {
    const crd: ResourceType = {
      ...rt('deployments', 'apps'),
      group: 'example.com',
      builtin: false,
      storageKey: 'apps/deployments',
    };
    const r = run(
      labels,
      attrs(crd, {
        apiVersion: 'example.com/v1',
        kind: 'Deployment',
        metadata: { name: 'x', namespace: 'ns' },
        spec: { template: { spec: bare().spec } },
      }),
    );
    assert.deepEqual(r, { annotations: {}, warnings: [] });
  });
});

describe('PodSecurity audit annotations over HTTP', () => {
  it("land on the request's audit record", async () => {
    const { startApiServer } = await import('../../src/index.ts');
    const { raw } = await import('../../src/testing/index.ts');
    const s = await startApiServer({ port: 0 });
    try {
      await raw(s, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'audited', labels: { 'pod-security.kubernetes.io/audit': 'restricted' } },
      });
      const created = await raw(s, 'POST', '/api/v1/namespaces/audited/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'loose' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
      assert.equal(created.status, 201, created.text);
      const entry = s
        .auditEntries()
        .find((e) => e.verb === 'create' && e.resource === 'pods' && e.namespace === 'audited');
      assert.ok(entry, 'the create is audited');
      assert.match(
        entry.annotations?.['pod-security.kubernetes.io/audit-violations'] ?? '',
        /would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/,
      );
      const plain = s.auditEntries().find((e) => e.verb === 'create' && e.resource === 'namespaces');
      assert.equal(plain?.annotations, undefined, 'requests without annotations carry none');
    } finally {
      await s.close();
    }
  });
});

// Object lifecycle as a user drives it with the real kubectl 1.32: cascading deletion with each
// --cascade policy over a Deployment → ReplicaSet → Pod chain (built with kubectl apply and the
// owners' uids), a finalizer holding a deletion until kubectl patch removes it, and namespace deletion.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../../src/testing/index.ts';

let c: TestCluster;

before(async () => {
  c = await startTestCluster();
});
after(async () => {
  await c.stop();
});

const deployment = (ns: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${ns} }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx:1.27 }] }
`;

const replicaSet = (ns: string, deployUid: string) => `
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-rs
  namespace: ${ns}
  ownerReferences:
    - { apiVersion: apps/v1, kind: Deployment, name: web, uid: ${deployUid}, controller: true, blockOwnerDeletion: true }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx:1.27 }] }
`;

const pod = (ns: string, name: string, rsUid: string, finalizers: string[] = []) => `
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
  labels: { app: web }
  finalizers: [${finalizers.join(', ')}]
  ownerReferences:
    - { apiVersion: apps/v1, kind: ReplicaSet, name: web-rs, uid: ${rsUid}, controller: true, blockOwnerDeletion: true }
spec: { containers: [{ name: web, image: nginx:1.27 }] }
`;

async function uid(ns: string, resource: string): Promise<string> {
  const out = (await c.k(['get', resource, '-n', ns, '-o', 'jsonpath={.metadata.uid}'])).trim();
  assert.match(out, /^[0-9a-f-]{36}$/, `${resource} has a uid`);
  return out;
}

/** Deployment web → ReplicaSet web-rs → pods (one per name; `held` pods carry a finalizer). */
async function chain(ns: string, pods: string[], held: string[] = []): Promise<void> {
  await c.k(['create', 'namespace', ns]);
  await c.k(['apply', '-f', '-'], deployment(ns));
  await c.k(['apply', '-f', '-'], replicaSet(ns, await uid(ns, 'deployment/web')));
  const rsUid = await uid(ns, 'replicaset/web-rs');
  for (const p of pods)
    await c.k(['apply', '-f', '-'], pod(ns, p, rsUid, held.includes(p) ? ['example.com/hold'] : []));
}

async function exists(ns: string, resource: string): Promise<boolean> {
  const r = await c.kubectl(['get', resource, '-n', ns, '--ignore-not-found', '-o', 'name']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim() !== '';
}

describe('kubectl: cascading deletion', () => {
  it('--cascade=background deletes the owner, then the ReplicaSet and its pods', async () => {
    await chain('cascade-bg', ['p1', 'p2']);
    const out = await c.k(['delete', 'deployment', 'web', '-n', 'cascade-bg', '--cascade=background']);
    assert.equal(out.trim(), 'deployment.apps "web" deleted');
    await c.k(['wait', '--for=delete', 'replicaset/web-rs', 'pod/p1', 'pod/p2', '-n', 'cascade-bg', '--timeout=20s']);
    assert.equal(await exists('cascade-bg', 'deployment/web'), false);
  });

  it('--cascade=foreground keeps the owner until blocking dependents are gone', async () => {
    await chain('cascade-fg', ['p1', 'held'], ['held']);
    await c.k(['delete', 'deployment', 'web', '-n', 'cascade-fg', '--cascade=foreground', '--wait=false']);
    await c.k(['wait', '--for=delete', 'pod/p1', '-n', 'cascade-fg', '--timeout=20s']);
    const owner = JSON.parse(await c.k(['get', 'deployment', 'web', '-n', 'cascade-fg', '-o', 'json'])) as {
      metadata: { finalizers: string[]; deletionTimestamp?: string };
    };
    assert.deepEqual(owner.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(owner.metadata.deletionTimestamp);
    assert.equal(
      (await c.k(['get', 'replicaset', 'web-rs', '-n', 'cascade-fg', '-o', 'jsonpath={.metadata.finalizers}'])).trim(),
      '["foregroundDeletion"]',
    );
    assert.notEqual(
      (await c.k(['get', 'pod', 'held', '-n', 'cascade-fg', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).trim(),
      '',
    );

    await c.k(['patch', 'pod', 'held', '-n', 'cascade-fg', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await c.k([
      'wait',
      '--for=delete',
      'deployment/web',
      'replicaset/web-rs',
      'pod/held',
      '-n',
      'cascade-fg',
      '--timeout=20s',
    ]);
  });

  it('--cascade=foreground with kubectl waiting returns once the whole chain is gone', async () => {
    await chain('cascade-fg-wait', ['p1']);
    const out = await c.k([
      'delete',
      'deployment',
      'web',
      '-n',
      'cascade-fg-wait',
      '--cascade=foreground',
      '--timeout=20s',
    ]);
    assert.equal(out.trim(), 'deployment.apps "web" deleted');
    assert.equal(await exists('cascade-fg-wait', 'deployment/web'), false);
    assert.equal(await exists('cascade-fg-wait', 'replicaset/web-rs'), false);
    assert.equal(await exists('cascade-fg-wait', 'pod/p1'), false);
  });

  it('--cascade=orphan deletes only the owner and strips it from the dependents', async () => {
    await chain('cascade-orphan', ['p1']);
    await c.k(['delete', 'deployment', 'web', '-n', 'cascade-orphan', '--cascade=orphan']);
    assert.equal(await exists('cascade-orphan', 'deployment/web'), false);
    assert.equal(
      (
        await c.k(['get', 'replicaset', 'web-rs', '-n', 'cascade-orphan', '-o', 'jsonpath={.metadata.ownerReferences}'])
      ).trim(),
      '',
    );
    assert.equal(
      (
        await c.k(['get', 'pod', 'p1', '-n', 'cascade-orphan', '-o', 'jsonpath={.metadata.ownerReferences[0].name}'])
      ).trim(),
      'web-rs',
      'grandchildren keep their own owner',
    );
  });
});

describe('kubectl: finalizers', () => {
  it('a finalizer holds a waiting kubectl delete until kubectl patch removes it', async () => {
    await c.k(['create', 'configmap', 'guarded', '--from-literal=k=v']);
    await c.k([
      'patch',
      'configmap',
      'guarded',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);
    let finished = false;
    const deleting = c.kubectl(['delete', 'configmap', 'guarded', '--timeout=30s']).then((r) => {
      finished = true;
      return r;
    });
    for (let i = 0; i < 100; i++) {
      if ((await c.k(['get', 'configmap', 'guarded', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).trim() !== '')
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.notEqual(
      (await c.k(['get', 'configmap', 'guarded', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).trim(),
      '',
    );
    assert.equal(finished, false, 'kubectl delete keeps waiting while the finalizer is there');

    const refused = await c.kubectl([
      'patch',
      'configmap',
      'guarded',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/late"}]',
    ]);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example.com\/late"\}/,
    );

    await c.k(['patch', 'configmap', 'guarded', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const r = await deleting;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'configmap "guarded" deleted');
    assert.equal(await exists('default', 'configmap/guarded'), false);
  });
});

describe('kubectl: namespaces', () => {
  it('every namespace has the default ServiceAccount and the API server CA', async () => {
    await c.k(['create', 'namespace', 'fresh']);
    await c.k([
      'wait',
      '--for=create',
      'serviceaccount/default',
      'configmap/kube-root-ca.crt',
      '-n',
      'fresh',
      '--timeout=20s',
    ]);
    const ca = await c.k(['get', 'configmap', 'kube-root-ca.crt', '-n', 'fresh', '-o', 'jsonpath={.data.ca\\.crt}']);
    assert.equal(ca, c.server.caPem);
  });

  it('kubectl delete namespace waits until the content and the namespace are gone', async () => {
    await c.k(['create', 'namespace', 'quick']);
    await c.k(['create', 'configmap', 'a', '-n', 'quick', '--from-literal=k=v']);
    await c.k(['create', 'secret', 'generic', 's', '-n', 'quick', '--from-literal=k=v']);
    await c.k(['apply', '-f', '-'], deployment('quick'));
    const out = await c.k(['delete', 'namespace', 'quick', '--timeout=30s']);
    assert.equal(out.trim(), 'namespace "quick" deleted');
    const r = await c.kubectl(['get', 'namespace', 'quick']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /namespaces "quick" not found/);
  });

  it('a held object keeps the namespace Terminating; new content is refused; removing the finalizer finishes it', async () => {
    await chain('doomed', ['p1']);
    await c.k(['create', 'configmap', 'held', '-n', 'doomed', '--from-literal=k=v']);
    await c.k([
      'patch',
      'configmap',
      'held',
      '-n',
      'doomed',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);
    await c.k(['delete', 'namespace', 'doomed', '--wait=false']);
    await c.k([
      'wait',
      '--for=delete',
      'deployment/web',
      'replicaset/web-rs',
      'pod/p1',
      '-n',
      'doomed',
      '--timeout=20s',
    ]);

    const table = await c.k(['get', 'namespace', 'doomed']);
    assert.match(table, /^NAME\s+STATUS\s+AGE\ndoomed\s+Terminating\s+\S+\n$/);
    const remaining = await c.k([
      'get',
      'namespace',
      'doomed',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="NamespaceContentRemaining")].message}',
    ]);
    assert.equal(remaining, 'Some resources are remaining: configmaps. has 1 resource instances');
    const describe = await c.k(['describe', 'namespace', 'doomed']);
    assert.match(
      describe,
      /NamespaceFinalizersRemaining\s+True\s+.*SomeFinalizersRemain\s+Some content in the namespace has finalizers remaining: example\.com\/hold in 1 resource instances/,
    );

    const refused = await c.kubectl(['create', 'configmap', 'late', '-n', 'doomed', '--from-literal=k=v']);
    assert.notEqual(refused.code, 0);
    assert.equal(
      refused.stderr.trim(),
      'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );

    await c.k(['patch', 'configmap', 'held', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await c.k(['wait', '--for=delete', 'namespace/doomed', '--timeout=20s']);
  });

  it('the system namespaces cannot be deleted', async () => {
    const r = await c.kubectl(['delete', 'namespace', 'default']);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /Error from server \(Forbidden\): namespaces "default" is forbidden: this namespace may not be deleted/,
    );
  });
});

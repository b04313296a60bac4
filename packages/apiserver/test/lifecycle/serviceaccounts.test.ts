// kube-controller-manager's ServiceAccount controller and root-CA publisher, in-process: every active
// namespace has the `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap with the server's CA;
// both come back when deleted, the ConfigMap is restored when edited, and nothing is created in a
// namespace being deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_CA_CONFIGMAP } from '../../src/controller-manager/index.ts';
import { configMap, type Lab, startLab } from './fixture.ts';

const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

let lab: Lab;
let counter = 0;

async function namespace(): Promise<string> {
  const name = `sa-${++counter}`;
  await lab.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await lab.settle();
  return name;
}

function assertRootCa(ns: string): void {
  const cm = lab.get('ConfigMap', ns, ROOT_CA_CONFIGMAP);
  assert.ok(cm, `${ns}/${ROOT_CA_CONFIGMAP} exists`);
  assert.deepEqual(cm.data, { 'ca.crt': lab.server.caPem });
  assert.equal(cm.metadata.annotations?.['kubernetes.io/description'], DESCRIPTION);
}

before(async () => {
  lab = await startLab();
  await lab.settle();
});
after(async () => {
  await lab.close();
});

describe('ServiceAccount controller and root CA publisher', () => {
  it('the system namespaces have a default ServiceAccount and the CA ConfigMap', () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const sa = lab.get('ServiceAccount', ns, 'default');
      assert.ok(sa, `${ns}/default ServiceAccount`);
      assertRootCa(ns);
    }
  });

  it("the published CA verifies the server's serving certificate", async () => {
    const { X509Certificate } = await import('node:crypto');
    const ca = new X509Certificate(
      lab.get('ConfigMap', 'default', ROOT_CA_CONFIGMAP)!.data!['ca.crt' as never] as string,
    );
    assert.equal(ca.ca, true);
    assert.equal(ca.toString(), new X509Certificate(lab.server.caPem).toString());
  });

  it('a new namespace gets both', async () => {
    const ns = await namespace();
    assert.ok(lab.get('ServiceAccount', ns, 'default'));
    assertRootCa(ns);
  });

  it('a deleted default ServiceAccount is recreated (as a new object)', async () => {
    const ns = await namespace();
    const before = lab.get('ServiceAccount', ns, 'default')!;
    await lab.del('ServiceAccount', ns, 'default');
    await lab.settle();
    const after = lab.get('ServiceAccount', ns, 'default');
    assert.ok(after);
    assert.notEqual(after.metadata.uid, before.metadata.uid);
  });

  const tampering: Array<[string, (ns: string) => Promise<unknown>]> = [
    ['deleted', (ns) => lab.del('ConfigMap', ns, ROOT_CA_CONFIGMAP)],
    [
      'data edited',
      (ns) => lab.update('ConfigMap', ns, ROOT_CA_CONFIGMAP, (o) => void (o.data = { 'ca.crt': 'bogus', extra: 'x' })),
    ],
    [
      'annotation removed',
      (ns) => lab.update('ConfigMap', ns, ROOT_CA_CONFIGMAP, (o) => void (o.metadata.annotations = {})),
    ],
  ];
  for (const [what, tamper] of tampering) {
    it(`the CA ConfigMap is restored when ${what}`, async () => {
      const ns = await namespace();
      await tamper(ns);
      await lab.settle();
      assertRootCa(ns);
    });
  }

  it('nothing is recreated in a namespace being deleted', async () => {
    const ns = await namespace();
    await lab.create(configMap(ns, 'held', { finalizers: ['example.com/hold'] }));
    await lab.del('Namespace', undefined, ns);
    await lab.settle();
    assert.ok(lab.get('Namespace', undefined, ns), 'still Terminating');
    assert.equal(lab.get('ServiceAccount', ns, 'default'), undefined);
    assert.equal(lab.get('ConfigMap', ns, ROOT_CA_CONFIGMAP), undefined);
    await lab.update('ConfigMap', ns, 'held', (o) => void (o.metadata.finalizers = []));
    await lab.settle();
    assert.equal(lab.get('Namespace', undefined, ns), undefined);
  });
});

// PersistentVolumeClaims and Service Endpoints on the embedded API server: dynamic provisioning by the
// default StorageClass, claims that cannot be bound, WaitForFirstConsumer with a pod, static binding,
// reclaim, a provisioning failure, and Endpoints following pod readiness.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Endpoints,
  EndpointsKind,
  type PersistentVolumeClaim,
  PersistentVolumeClaims,
  PersistentVolumes,
  Pods,
  Services,
  type StorageClass,
} from '@modelplane/sim/workloads/kinds';
import { type CategorizedError, pvcHealth } from '../../src/engine/index.ts';
import { pod, type SimCluster, startSimCluster, waitFor } from './workloads-fixture.ts';

function claim(
  name: string,
  namespace: string,
  extra: Partial<PersistentVolumeClaim['spec']> = {},
  annotations?: Record<string, string>,
): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } }, ...extra },
  };
}

function storageClass(
  name: string,
  opts: { isDefault?: boolean; mode?: 'Immediate' | 'WaitForFirstConsumer'; reclaimPolicy?: 'Delete' | 'Retain' } = {},
): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      ...(opts.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: opts.reclaimPolicy ?? 'Delete',
    volumeBindingMode: opts.mode ?? 'Immediate',
  };
}

describe('workload simulators: PersistentVolumeClaims without a default StorageClass', () => {
  let c: SimCluster;
  before(async () => {
    c = await startSimCluster();
  });
  after(async () => c?.close());

  it('stays Pending with FailedBinding, and binds once a default class appears', async () => {
    const ns = await c.namespace('pvc-nodefault');
    await c.admin.create(claim('data', ns));
    const ev = await waitFor(
      async () => (await c.events(ns, 'PersistentVolumeClaim', 'data')).find((e) => e.reason === 'FailedBinding'),
      'FailedBinding event',
    );
    assert.equal(ev.type, 'Normal');
    assert.equal(ev.message, 'no persistent volumes available for this claim and no storage class is set');
    assert.equal(ev.reportingComponent, 'persistentvolume-controller');
    const pending = await c.admin.get(PersistentVolumeClaims, 'data', ns);
    assert.equal(pending.status?.phase, 'Pending');
    assert.equal(pvcHealth(pending as never).state, 'Progressing');

    await c.admin.create(storageClass('standard', { isDefault: true }));
    const bound = await waitFor(async () => {
      const x = await c.admin.get(PersistentVolumeClaims, 'data', ns);
      return x.status?.phase === 'Bound' ? x : undefined;
    }, 'claim bound after the default class appeared');
    assert.equal(bound.spec.volumeName, `pvc-${bound.metadata.uid}`);
  });

  it('a claim naming a missing class reports ProvisioningFailed', async () => {
    const ns = await c.namespace('pvc-missing-class');
    await c.admin.create(claim('data', ns, { storageClassName: 'fast-ssd' }));
    const ev = await waitFor(
      async () => (await c.events(ns, 'PersistentVolumeClaim', 'data')).find((e) => e.reason === 'ProvisioningFailed'),
      'ProvisioningFailed',
    );
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.message, 'storageclass.storage.k8s.io "fast-ssd" not found');
  });
});

describe('workload simulators: PersistentVolumeClaims and Endpoints', () => {
  let c: SimCluster;
  before(async () => {
    c = await startSimCluster();
    await c.node('node-1', { cpu: '16', memory: '64Gi', pods: '110' });
    await c.admin.create(storageClass('standard', { isDefault: true }));
    await c.admin.create(storageClass('local-wait', { mode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain' }));
  });
  after(async () => c?.close());

  async function bound(ns: string, name: string): Promise<PersistentVolumeClaim> {
    return waitFor(async () => {
      const x = await c.admin.get(PersistentVolumeClaims, name, ns);
      return x.status?.phase === 'Bound' ? x : undefined;
    }, `claim ${ns}/${name} bound`);
  }

  it('the default StorageClass provisions pvc-<uid> and binds it', async () => {
    const ns = await c.namespace('pvc-default');
    await c.admin.create(claim('models', ns));
    const pvc = await bound(ns, 'models');
    const pvName = `pvc-${pvc.metadata.uid}`;
    assert.equal(pvc.spec.volumeName, pvName);
    assert.deepEqual(pvc.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '50Gi' } });
    const a = pvc.metadata.annotations ?? {};
    assert.equal(a['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(a['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal(a['volume.kubernetes.io/storage-provisioner'], 'rancher.io/local-path');
    assert.equal(a['volume.beta.kubernetes.io/storage-provisioner'], 'rancher.io/local-path');

    const pv = await c.admin.get(PersistentVolumes, pvName);
    assert.equal(pv.status?.phase, 'Bound');
    assert.equal(pv.spec.storageClassName, 'standard');
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
    assert.deepEqual(pv.spec.capacity, { storage: '50Gi' });
    assert.deepEqual(pv.spec.accessModes, ['ReadWriteOnce']);
    assert.equal(pv.spec.claimRef?.uid, pvc.metadata.uid);
    assert.equal(pv.spec.claimRef?.name, 'models');
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'rancher.io/local-path');

    const events = (await c.events(ns, 'PersistentVolumeClaim', 'models')).map((e) => `${e.reason}: ${e.message}`);
    assert.ok(
      events.includes(`Provisioning: External provisioner is provisioning volume for claim "${ns}/models"`),
      events.join('\n'),
    );
    assert.ok(events.includes(`ProvisioningSucceeded: Successfully provisioned volume ${pvName}`), events.join('\n'));
    assert.equal(pvcHealth(pvc as never).state, 'Ready');

    // reclaimPolicy Delete: the volume goes with its claim
    await c.admin.delete(PersistentVolumeClaims, 'models', ns);
    await waitFor(
      async () => (await c.admin.getOrUndefined(PersistentVolumes, pvName)) === undefined,
      'volume deleted with its claim',
    );
  });

  it('WaitForFirstConsumer: waits for a pod, provisions on its node, then the pod runs', async () => {
    const ns = await c.namespace('pvc-wffc');
    await c.admin.create(claim('cache', ns, { storageClassName: 'local-wait' }));
    const ev = await waitFor(
      async () =>
        (await c.events(ns, 'PersistentVolumeClaim', 'cache')).find((e) => e.reason === 'WaitForFirstConsumer'),
      'WaitForFirstConsumer',
    );
    assert.equal(ev.message, 'waiting for first consumer to be created before binding');
    assert.equal((await c.admin.get(PersistentVolumeClaims, 'cache', ns)).status?.phase, 'Pending');

    await c.admin.create(
      pod('user', ns, { volumes: [{ name: 'cache', persistentVolumeClaim: { claimName: 'cache' } }] }),
    );
    const pvc = await bound(ns, 'cache');
    assert.equal(pvc.metadata.annotations?.['volume.kubernetes.io/selected-node'], 'node-1');
    const pv = await c.admin.get(PersistentVolumes, pvc.spec.volumeName!);
    assert.deepEqual(pv.spec.nodeAffinity, {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] },
        ],
      },
    });
    const p = await waitFor(async () => {
      const x = await c.admin.get(Pods, 'user', ns);
      return x.status?.phase === 'Running' ? x : undefined;
    }, 'pod running once its claim is bound');
    assert.equal(p.spec.nodeName, 'node-1');

    // reclaimPolicy Retain: the volume outlives its claim, Released
    await c.admin.delete(Pods, 'user', ns);
    await c.admin.delete(PersistentVolumeClaims, 'cache', ns);
    await waitFor(
      async () => (await c.admin.get(PersistentVolumes, pv.metadata.name!)).status?.phase === 'Released',
      'volume Released',
    );
  });

  it('a pod whose claim is missing or unbound stays Pending with the scheduler saying why', async () => {
    const ns = await c.namespace('pvc-pod-missing');
    await c.admin.create(pod('orphan', ns, { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'nope' } }] }));
    const ev = await waitFor(
      async () => (await c.events(ns, 'Pod', 'orphan')).find((e) => e.reason === 'FailedScheduling'),
      'FailedScheduling',
    );
    assert.equal(
      ev.message,
      '0/1 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    );
    await c.admin.create(claim('nope', ns));
    await waitFor(
      async () => (await c.admin.get(Pods, 'orphan', ns)).spec.nodeName,
      'pod bound once the claim exists and is bound',
    );
  });

  it('binds a claim to a matching pre-created volume instead of provisioning', async () => {
    const ns = await c.namespace('pvc-static');
    await c.admin.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'nfs-models' },
      spec: {
        capacity: { storage: '100Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
        storageClassName: 'standard',
        persistentVolumeReclaimPolicy: 'Retain',
        nfs: { server: '10.0.0.5', path: '/models' },
      },
    });
    await waitFor(
      async () => (await c.admin.get(PersistentVolumes, 'nfs-models')).status?.phase === 'Available',
      'static volume Available',
    );
    await c.admin.create(
      claim('shared', ns, { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '80Gi' } } }),
    );
    const pvc = await bound(ns, 'shared');
    assert.equal(pvc.spec.volumeName, 'nfs-models');
    assert.deepEqual(pvc.status?.capacity, { storage: '100Gi' });
  });

  it('DiskFull on a claim: provisioning fails for lack of space, and the inspector says StorageFull', async () => {
    const ns = await c.namespace('pvc-diskfull');
    await c.admin.create(claim('huge', ns, {}, { 'sim.modelplane.io/fail': 'DiskFull' }));
    const ev = await waitFor(
      async () => (await c.events(ns, 'PersistentVolumeClaim', 'huge')).find((e) => e.reason === 'ProvisioningFailed'),
      'ProvisioningFailed',
    );
    assert.equal(ev.type, 'Warning');
    assert.match(ev.message, /^failed to provision volume with StorageClass "standard": .*insufficient storage space/);
    const pvc = await c.admin.get(PersistentVolumeClaims, 'huge', ns);
    assert.equal(pvc.status?.phase, 'Pending');
    const health = pvcHealth(pvc as never, (await c.events(ns, 'PersistentVolumeClaim', 'huge')) as never);
    assert.equal((health.errors?.[0] as CategorizedError | undefined)?.reason, 'StorageFull');
  });

  it('Endpoints list ready pods under addresses and the others under notReadyAddresses, by resolved port', async () => {
    const ns = await c.namespace('endpoints');
    await c.admin.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'llm', namespace: ns, labels: { app: 'llm' } },
      spec: { selector: { app: 'llm' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const server = (name: string, annotations?: Record<string, string>) => ({
      ...pod(
        name,
        ns,
        {
          containers: [
            { name: 'main', image: 'vllm/vllm-openai:v0.8.5', ports: [{ name: 'http', containerPort: 8000 }] },
          ],
        },
        annotations,
      ),
      metadata: { name, namespace: ns, labels: { app: 'llm' }, ...(annotations ? { annotations } : {}) },
    });
    await c.admin.create(server('a'));
    await c.admin.create(server('b'));
    await c.admin.create(server('broken', { 'sim.modelplane.io/fail': 'CrashLoopBackOff' }));
    await c.admin.create({ ...pod('other', ns), metadata: { name: 'other', namespace: ns, labels: { app: 'web' } } });
    const ep = await waitFor(async () => {
      const x = await c.admin.getOrUndefined(EndpointsKind, 'llm', ns);
      const s = x?.subsets?.[0];
      return s?.addresses?.length === 2 && s.notReadyAddresses?.length === 1 ? x : undefined;
    }, 'endpoints with 2 ready and 1 unready address');
    const pods = new Map((await c.admin.list(Pods, { namespace: ns })).items.map((p) => [p.metadata.name!, p]));
    const addr = (name: string) => ({
      ip: pods.get(name)!.status!.podIP!,
      nodeName: 'node-1',
      targetRef: { kind: 'Pod', name, namespace: ns, uid: pods.get(name)!.metadata.uid! },
    });
    const sortByIp = (xs: ReturnType<typeof addr>[]) =>
      xs.sort((x, y) => x.ip.localeCompare(y.ip, undefined, { numeric: true }));
    assert.deepEqual(ep.subsets, [
      {
        addresses: sortByIp([addr('a'), addr('b')]),
        notReadyAddresses: [addr('broken')],
        ports: [{ name: 'http', port: 8000, protocol: 'TCP' }],
      },
    ]);
    assert.deepEqual(ep.metadata.labels, { app: 'llm' });

    await c.admin.delete(Pods, 'a', ns);
    await waitFor(
      async () => (await c.admin.get(EndpointsKind, 'llm', ns)).subsets?.[0]?.addresses?.length === 1,
      'a removed from the endpoints',
    );
    await c.admin.delete(Pods, 'b', ns);
    await c.admin.delete(Pods, 'broken', ns);
    const empty = await waitFor(async () => {
      const x: Endpoints = await c.admin.get(EndpointsKind, 'llm', ns);
      return x.subsets === undefined ? x : undefined;
    }, 'no subsets once no pod matches');
    assert.equal(empty.metadata.name, 'llm');
    await c.admin.delete(Services, 'llm', ns);
    await waitFor(
      async () => (await c.admin.getOrUndefined(EndpointsKind, 'llm', ns)) === undefined,
      'endpoints deleted with the service',
    );
  });
});

// A provider is ready only while its upstream operator runs and the very kind it builds is served: the
// registration against an API server, with the operator's Deployment scaled, its pods gone, and the
// provider's CRD deleted while another kind of the same group/version stays served.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { CustomResourceDefinitions, KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { externalCrds } from '@modelplane/sim/crds';
import { InferenceProviderConfigs, kubeairunwayCrds } from '../../../src/apis/kubeairunway/index.ts';
import { ProviderRegistration } from '../../../src/controllers/kubeairunway/provider/index.ts';
import { operatorVerdict } from '../../../src/controllers/kubeairunway/provider/operator-check.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../../../src/controllers/kubeairunway/providers/index.ts';
import { systemClock } from '../../../src/engine/index.ts';
import { waitFor } from '../../helpers/wait.ts';

const SELECTOR = 'app.kubernetes.io/name=kuberay-operator';
const deployment = (ns: string, name: string, labels: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'manager', image: 'op' }] } },
    },
  }) as KubeObject;

describe('operatorVerdict', () => {
  const d = (name: string, available?: number, deleting = false) =>
    ({
      ...deployment('ray', name, {}),
      metadata: { name, namespace: 'ray', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
      status: available === undefined ? {} : { availableReplicas: available },
    }) as KubeObject;
  it('runs while one Deployment has an available replica, and says which', () => {
    assert.deepEqual(operatorVerdict([d('a', 0), d('b', 2)], SELECTOR, 'the KubeRay operator'), {
      running: true,
      reason: 'OperatorRunning',
      message: 'the KubeRay operator is running: Deployment ray/b has available replicas',
    });
  });
  it('names every Deployment and its count when none is available; a Deployment being deleted does not count', () => {
    const v = operatorVerdict([d('a'), d('b', 3, true)], SELECTOR, 'the KubeRay operator');
    assert.equal(v.running, false);
    assert.equal(v.reason, 'OperatorNotRunning');
    assert.match(v.message, /^the KubeRay operator is not running: ray\/a 0\/1 available; scale it up/);
  });
  it('says what to do when there is none', () => {
    const v = operatorVerdict([], SELECTOR, 'the KubeRay operator');
    assert.equal(v.reason, 'OperatorNotFound');
    assert.match(
      v.message,
      /no Deployment labelled app\.kubernetes\.io\/name=kuberay-operator in any namespace; install it, or start the provider with --upstream-operator-selector/,
    );
  });
});

describe('provider registration: operator and per-kind CRD', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let admin: KubeClient;
  let registration: ProviderRegistration;

  before(async () => {
    cluster = await startTestCluster();
    admin = await KubeClient.create(cluster.kubeconfig, { fieldManager: 'test-user' });
    for (const crd of [...kubeairunwayCrds(), ...externalCrds()]) await ensureCrd(admin, crd);
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ray' } });
    registration = new ProviderRegistration(
      admin.withFieldManager('kuberay-provider'),
      BUILTIN_PROVIDER_DEFINITIONS.kuberay,
      {
        heartbeatIntervalMs: 3_600_000,
        discoveryRetryMs: 200,
        clock: systemClock,
        log: new Logger({ level: 'error' }),
        onUpstreamServed: () => undefined,
        operatorSelector: SELECTOR,
      },
    );
  });

  after(async () => {
    await registration?.stop();
    await cluster?.stop();
  });

  const ipc = () => admin.get(InferenceProviderConfigs, 'kuberay');
  const upstreamReady = async () => (await ipc()).status?.conditions?.find((c) => c.type === 'UpstreamReady');
  const setAvailable = (n: number) =>
    admin
      .withFieldManager('deployment-controller')
      .applyStatus(
        { ...deployment('ray', 'kuberay-operator', {}), status: { replicas: 1, availableReplicas: n } } as KubeObject,
        { force: true },
      );

  it('is not ready without its operator, ready once its Deployment has an available replica, and not ready again when it has none', async () => {
    await registration.start();
    const missing = await waitFor('UpstreamReady=False', async () => {
      const c = await upstreamReady();
      return c?.status === 'False' && c;
    });
    assert.equal(missing.reason, 'OperatorNotFound');
    assert.equal((await ipc()).status?.ready, false, 'CRD served, operator missing: not ready');
    // a Deployment with other labels is not the operator
    await admin.apply(deployment('ray', 'other', { 'app.kubernetes.io/name': 'something-else' }));
    await admin.apply(deployment('ray', 'kuberay-operator', { 'app.kubernetes.io/name': 'kuberay-operator' }));
    await setAvailable(1);
    await waitFor('ready', async () => (await ipc()).status?.ready === true);
    assert.equal((await upstreamReady())?.reason, 'OperatorRunning');
    assert.equal((await ipc()).status?.upstreamKind, 'RayService');
    // scaled to zero: the next look (a beat) says so
    await setAvailable(0);
    await registration.beat();
    const down = await upstreamReady();
    assert.equal(down?.reason, 'OperatorNotRunning');
    assert.match(down?.message ?? '', /ray\/kuberay-operator 0\/1 available/);
    assert.equal((await ipc()).status?.ready, false);
    // and it is noticed again without waiting for a heartbeat (quick looks while down)
    await setAvailable(1);
    await waitFor('ready again', async () => (await ipc()).status?.ready === true, { timeoutMs: 10_000 });
  });

  it('is not ready when its own kind is gone though another kind of the group/version is served', async () => {
    await admin.delete(CustomResourceDefinitions, 'rayservices.ray.io');
    await waitFor(
      'rayservices gone',
      async () =>
        !(await admin.list(CustomResourceDefinitions)).items.some((c) => c.metadata.name === 'rayservices.ray.io'),
    );
    assert.ok(
      (await admin.list(CustomResourceDefinitions)).items.some((c) => c.metadata.name === 'rayclusters.ray.io'),
    );
    await registration.beat();
    const status = (await ipc()).status;
    assert.equal(status?.ready, false);
    assert.equal(status?.conditions?.find((c) => c.type === 'UpstreamCRDInstalled')?.status, 'False');
  });
});

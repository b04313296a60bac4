// The AIMModel / AIMClusterModel controllers on the embedded dev cluster, with an AIM_SYSTEM_NAMESPACE-style
// operator namespace: ConfigNotFound then recovery when the config is created (no restart), the resolved
// ref in both scopes and for both model kinds, a config in one namespace never touching another, and the
// DefaultConfigNotFound event exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClient } from '@modelplane/runtime/client';
import { EventsV1 } from '@modelplane/runtime/events';
import { registerAimModelControllers } from '../../../src/controllers/aim/model/index.ts';
import { AIMClusterModels, type AIMModel, AIMModels } from '../../../src/controllers/aim/shared/kinds.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const OPERATOR_NS = 'aim-ops';
const API = 'aim.eai.amd.com/v1alpha1';
const IMAGE = 'ghcr.io/silogen/aim-dummy:0.1.8';

describe('model controllers on the dev cluster', { timeout: 60_000 }, () => {
  let cluster: OperatorTestCluster<unknown[]>;
  let admin: KubeClient;
  const kubectl = (args: string[], input?: string) => cluster.k(args, input);
  const apply = (obj: object) => kubectl(['apply', '-f', '-'], JSON.stringify(obj));
  const nsModel = (namespace: string, name: string, runtimeConfigName?: string) => ({
    apiVersion: API,
    kind: 'AIMModel',
    metadata: { name, namespace },
    spec: { image: IMAGE, ...(runtimeConfigName ? { runtimeConfigName } : {}) },
  });
  const nsConfig = (namespace: string, name: string) => ({
    apiVersion: API,
    kind: 'AIMRuntimeConfig',
    metadata: { name, namespace },
    spec: {},
  });
  const clusterConfig = (name: string) => ({
    apiVersion: API,
    kind: 'AIMClusterRuntimeConfig',
    metadata: { name },
    spec: {},
  });
  const model = (namespace: string | undefined, name: string) =>
    (namespace ? admin.get(AIMModels, name, namespace) : admin.get(AIMClusterModels, name)) as Promise<AIMModel>;
  const cond = (m: AIMModel, type: string) => m.status?.conditions?.find((c) => c.type === type);
  const until = (namespace: string | undefined, name: string, ok: (m: AIMModel) => boolean, what: string) =>
    waitFor(what, async () => {
      const m = await model(namespace, name);
      return m.status?.observedGeneration === m.metadata.generation && ok(m) ? m : undefined;
    });

  before(async () => {
    cluster = await startOperatorTestCluster({
      name: 'aim-model-test',
      namespaces: ['ml-team', 'team-b', OPERATOR_NS],
      register: (mgr) => registerAimModelControllers(mgr, { operatorNamespace: OPERATOR_NS }),
    });
    admin = cluster.admin;
    assert.equal(cluster.registered.length, 2);
  });

  after(() => cluster?.stop());

  it('runtimeConfigName: missing → ConfigNotFound (Failed), then Ready once the config is created; other namespaces untouched', async () => {
    await apply(nsModel('ml-team', 'qwen', 'missing'));
    await apply(nsModel('team-b', 'qwen', 'missing'));
    const degraded = await until('ml-team', 'qwen', (m) => m.status?.status === 'Failed', 'ml-team/qwen Failed');
    assert.equal(cond(degraded, 'Ready')?.reason, 'ConfigNotFound');
    assert.equal(cond(degraded, 'RuntimeConfigReady')?.status, 'False');
    assert.match(cond(degraded, 'RuntimeConfigReady')?.message ?? '', /RuntimeConfig missing not found/);
    assert.match(
      await kubectl(['get', 'aimmdl', '-n', 'ml-team']),
      /qwen\s+Failed\s+Image\s+ghcr\.io\/silogen\/aim-dummy:0\.1\.8/,
    );
    const teamB = await until('team-b', 'qwen', (m) => m.status?.status === 'Failed', 'team-b/qwen Failed');

    await apply(nsConfig('ml-team', 'missing'));
    const ready = await until(
      'ml-team',
      'qwen',
      (m) => m.status?.status === 'Ready',
      'ml-team/qwen Ready after the config appears',
    );
    const config = JSON.parse(await kubectl(['get', 'aimrc', 'missing', '-n', 'ml-team', '-o', 'json']));
    assert.deepEqual(ready.status?.resolvedRuntimeConfig, {
      kind: 'AIMRuntimeConfig',
      name: 'missing',
      namespace: 'ml-team',
      scope: 'Namespace',
      uid: config.metadata.uid,
    });
    assert.equal(cond(ready, 'RuntimeConfigReady')?.reason, 'RuntimeConfigResolved');

    // ml-team's config is not team-b's: team-b's model was not even rewritten
    await sleep(300);
    const teamBAfter = await model('team-b', 'qwen');
    assert.equal(teamBAfter.status?.status, 'Failed');
    assert.equal(teamBAfter.metadata.resourceVersion, teamB.metadata.resourceVersion, "team-b's model was not touched");
  });

  it('resolvedRuntimeConfig in both scopes, for AIMModel and AIMClusterModel (operator namespace from opts)', async () => {
    await apply(nsModel('team-b', 'shared-user', 'shared'));
    await apply({
      apiVersion: API,
      kind: 'AIMClusterModel',
      metadata: { name: 'cluster-qwen' },
      spec: { image: IMAGE, runtimeConfigName: 'shared' },
    });
    await until(
      'team-b',
      'shared-user',
      (m) => m.status?.status === 'Failed',
      'team-b/shared-user waits for its config',
    );
    await until(undefined, 'cluster-qwen', (m) => m.status?.status === 'Failed', 'cluster-qwen waits for its config');

    await apply(clusterConfig('shared'));
    const clusterUid = JSON.parse(await kubectl(['get', 'aimclrc', 'shared', '-o', 'json'])).metadata.uid;
    const clusterRef = {
      kind: 'AIMClusterRuntimeConfig',
      name: 'shared',
      namespace: '',
      scope: 'Cluster',
      uid: clusterUid,
    };
    for (const [ns, name] of [
      ['team-b', 'shared-user'],
      [undefined, 'cluster-qwen'],
    ] as const) {
      const m = await until(ns, name, (m) => m.status?.status === 'Ready', `${name} Ready on the cluster config`);
      assert.deepEqual(m.status?.resolvedRuntimeConfig, clusterRef, name);
    }

    // a namespaced config in the operator namespace is the cluster model's (and nobody else's)
    await apply(nsConfig(OPERATOR_NS, 'shared'));
    const opUid = JSON.parse(await kubectl(['get', 'aimrc', 'shared', '-n', OPERATOR_NS, '-o', 'json'])).metadata.uid;
    const cm = await until(
      undefined,
      'cluster-qwen',
      (m) => m.status?.resolvedRuntimeConfig?.scope === 'Namespace',
      'cluster-qwen on the operator-namespace config',
    );
    assert.deepEqual(cm.status?.resolvedRuntimeConfig, {
      kind: 'AIMRuntimeConfig',
      name: 'shared',
      namespace: OPERATOR_NS,
      scope: 'Namespace',
      uid: opUid,
    });
    assert.deepEqual(
      (await model('team-b', 'shared-user')).status?.resolvedRuntimeConfig,
      clusterRef,
      'the operator namespace config is not a team-b config',
    );

    // team-b's own config takes over for team-b only
    await apply(nsConfig('team-b', 'shared'));
    const own = await until(
      'team-b',
      'shared-user',
      (m) => m.status?.resolvedRuntimeConfig?.scope === 'Namespace',
      "team-b/shared-user on its namespace's config",
    );
    assert.equal(own.status?.resolvedRuntimeConfig?.namespace, 'team-b');
    assert.equal((await model(undefined, 'cluster-qwen')).status?.resolvedRuntimeConfig?.namespace, OPERATOR_NS);

    // deleting the namespaced config falls back to the cluster one
    await kubectl(['delete', 'aimrc', 'shared', '-n', 'team-b']);
    const back = await until(
      'team-b',
      'shared-user',
      (m) => m.status?.resolvedRuntimeConfig?.scope === 'Cluster',
      'fallback to the cluster config',
    );
    assert.deepEqual(back.status?.resolvedRuntimeConfig, clusterRef);
    assert.match(await kubectl(['get', 'aimclmdl']), /cluster-qwen\s+Ready\s+/);
  });

  it('no default config: Ready with RuntimeConfigReady=True/DefaultConfigNotFound and exactly one Normal event', async () => {
    await apply(nsModel('ml-team', 'plain'));
    const m = await until('ml-team', 'plain', (m) => m.status?.status === 'Ready', 'ml-team/plain Ready');
    assert.equal(cond(m, 'RuntimeConfigReady')?.status, 'True');
    assert.equal(cond(m, 'RuntimeConfigReady')?.reason, 'DefaultConfigNotFound');
    assert.equal(m.status?.resolvedRuntimeConfig, undefined);
    const eventsFor = async () =>
      (await admin.list(EventsV1, { namespace: 'ml-team' })).items.filter(
        (e) => e.reason === 'DefaultConfigNotFound' && e.regarding?.uid === m.metadata.uid,
      );
    await waitFor('the DefaultConfigNotFound event', async () => (await eventsFor()).length > 0);

    // more reconciles (a spec change bumps the generation) add no second event
    await kubectl([
      'patch',
      'aimmdl',
      'plain',
      '-n',
      'ml-team',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { image: `${IMAGE}-rev2` } }),
    ]);
    await until(
      'ml-team',
      'plain',
      (x) => x.metadata.generation === 2 && x.status?.status === 'Ready',
      'the second generation judged',
    );
    await sleep(300);
    const events = await eventsFor();
    assert.equal(events.length, 1, JSON.stringify(events));
    assert.equal(events[0]!.type, 'Normal');
    assert.equal(events[0]!.series, undefined, 'not repeated into a series either');
  });

  it('an invalid image is Failed with ConfigValid naming spec.image; fixing it recovers', async () => {
    await apply({ ...nsModel('ml-team', 'typo'), spec: { image: 'ghcr.io/Silogen/aim-dummy:0.1.8' } });
    const failed = await until('ml-team', 'typo', (m) => m.status?.status === 'Failed', 'ml-team/typo Failed');
    assert.equal(cond(failed, 'ConfigValid')?.status, 'False');
    assert.match(
      cond(failed, 'ConfigValid')?.message ?? '',
      /spec\.image "ghcr\.io\/Silogen\/aim-dummy:0\.1\.8" is not a valid OCI image reference: repository name must be lowercase/,
    );
    await kubectl([
      'patch',
      'aimmdl',
      'typo',
      '-n',
      'ml-team',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { image: IMAGE } }),
    ]);
    const ok = await until('ml-team', 'typo', (m) => m.status?.status === 'Ready', 'ml-team/typo Ready');
    assert.equal(cond(ok, 'ConfigValid')?.status, 'True');
    assert.equal(cond(ok, 'ImageReady'), undefined);
  });
});

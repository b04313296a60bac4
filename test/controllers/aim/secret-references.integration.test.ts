// A model whose pull Secret is missing recovers, without an edit, when the Secret is created and when it is
// fixed (docs/aim.md, "Secrets"): the Secret's watch reconciles the model at once. The model's own auth retry
// is pushed to an hour here, so only the watch can make it recover; a Secret the model does not name is
// never watched and reconciles nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import type { ReferencedObjectWatch } from '@modelplane/runtime/controller';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  SIM_REGISTRY_PASSWORD,
  SIM_REGISTRY_USERNAME,
  type SimRegistryServer,
  startSimRegistryServer,
} from '@modelplane/sim/registry/server';
import { kubeSecretSource, OciRegistryClient } from '../../../src/controllers/aim/catalog/oci/client.ts';
import { registerAimModelControllers } from '../../../src/controllers/aim/model/index.ts';
import { type AIMModel, AIMModels } from '../../../src/controllers/aim/shared/kinds.ts';
import { watchReferencedSecrets } from '../../../src/controllers/aim/shared/secret-references.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const NS = 'ml-team';
const OPERATOR_NS = 'aim-ops';
const IMAGE = 'docker.io/amdenterpriseai/aim-private-model:0.9.0';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const pullSecret = (name: string, password: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type: 'kubernetes.io/dockerconfigjson',
    data: {
      '.dockerconfigjson': b64(
        JSON.stringify({ auths: { 'docker.io': { auth: b64(`${SIM_REGISTRY_USERNAME}:${password}`) } } }),
      ),
    },
  }) as KubeObject;

describe('a referenced pull Secret reconciles the models naming it', { timeout: 120_000 }, () => {
  let registry: SimRegistryServer;
  let cluster: OperatorTestCluster<Controller[]>;
  let admin: KubeClient;
  let secrets: ReferencedObjectWatch;

  const authValid = async () =>
    (await admin.get(AIMModels, 'private', NS)).status?.conditions?.find((c) => c.type === 'AuthValid');
  /** aim-model reconciles finished, once none is queued or running */
  const reconciles = async () => {
    const controller = cluster.registered[0]!;
    await waitFor('aim-model idle', async () => controller.pendingWork === 0);
    const m = await cluster.manager.metrics.reconcileTotal.get();
    return m.values.filter((v) => v.labels.controller === 'aim-model').reduce((n, v) => n + v.value, 0);
  };

  before(async () => {
    registry = await startSimRegistryServer();
    cluster = await startOperatorTestCluster({
      name: 'aim-secret-refs',
      namespaces: [NS, OPERATOR_NS],
      register: async (mgr) => {
        const controllers = await registerAimModelControllers(mgr, {
          operatorNamespace: OPERATOR_NS,
          registry: new OciRegistryClient({
            mirrors: { 'docker.io': registry.url },
            secrets: kubeSecretSource(mgr.client),
          }),
          // only the Secret's watch can make the model recover within this test
          authRetryMinMs: 3_600_000,
        });
        secrets = watchReferencedSecrets(mgr, OPERATOR_NS, [{ kind: AIMModels, controller: controllers[0]! }]);
        return controllers;
      },
    });
    admin = cluster.admin;
  });

  after(async () => {
    await cluster?.stop();
    await registry?.close();
  });

  it('missing → created with a wrong password → fixed: each step reconciles the model; Ready without an edit', async () => {
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMModel',
      metadata: { name: 'private', namespace: NS },
      spec: { image: IMAGE, imagePullSecrets: [{ name: 'regcred' }] },
    } as AIMModel);
    const missing = await waitFor('AuthValid=False naming the missing Secret', async () => {
      const c = await authValid();
      return c?.status === 'False' && /regcred not found/.test(c.message ?? '') ? c : undefined;
    });
    assert.match(missing.message ?? '', /kubectl create secret docker-registry regcred -n ml-team/);
    assert.deepEqual(secrets.watched(), [`${NS}/regcred`]);
    const generation = (await admin.get(AIMModels, 'private', NS)).metadata.generation;

    // a Secret the model does not name: no watch sees it, so no reconcile
    const quiet = await reconciles();
    await admin.apply(pullSecret('unrelated', 'x'));
    await admin.apply(pullSecret('unrelated', SIM_REGISTRY_PASSWORD));
    await admin.apply(pullSecret('regcred', 'wrong'));
    const refused = await waitFor('AuthValid=False: the credentials were refused', async () => {
      const c = await authValid();
      return c?.status === 'False' && /were refused/.test(c.message ?? '') ? c : undefined;
    });
    assert.match(refused.message ?? '', /Secret ml-team\/regcred/);
    // exactly the reconcile the named Secret's creation asked for
    assert.equal((await reconciles()) - quiet, 1);
    assert.deepEqual(secrets.watched(), [`${NS}/regcred`]);

    await admin.apply(pullSecret('regcred', SIM_REGISTRY_PASSWORD));
    const ready = await waitFor('AuthValid=True', async () => {
      const c = await authValid();
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(ready.status, 'True');
    const model = await admin.get(AIMModels, 'private', NS);
    assert.equal(model.metadata.generation, generation, 'the model was never edited');
    assert.equal(model.status?.imageMetadata?.model?.canonicalName, 'example/private');
  });
});

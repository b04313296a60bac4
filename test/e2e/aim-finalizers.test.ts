// The AIM finalizers on `modelplane dev`'s cluster: a deleted AIMService deletes the template caches it created
// that are not Ready (Ready ones keep their weights for the next service), a deleted AIMTemplateCache does the
// same with its artifacts, and a namespace full of AIM objects (services, models, templates, caches,
// artifacts, PVCs, Jobs, InferenceServices) is deleted without any finalizer holding it. Frozen objects
// (the pause annotation, status written by the test) stand in for children in a chosen state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KubeClient, Namespaces } from '@modelplane/runtime/client';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { type SimRegistryServer, startSimRegistryServer } from '@modelplane/sim/registry/server';
import { kubeSecretSource, OciRegistryClient } from '../../src/controllers/aim/catalog/oci/client.ts';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import {
  ARTIFACT_CLEANUP_FINALIZER,
  TEMPLATE_CACHE_CLEANUP_FINALIZER,
} from '../../src/controllers/aim/shared/finalizers.ts';
import { AIMArtifacts, AIMServices, AIMTemplateCaches } from '../../src/controllers/aim/shared/kinds.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const API = 'aim.eai.amd.com/v1alpha1';
const NS = 'fin';
const DOOMED = 'doomed';
const OPERATOR_NS = 'aim-system';
const QWEN = 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5';
const PAUSED = { 'aim.eai.amd.com/reconciliation-paused': 'true' };
const log = new Logger({}, parseLogLevel(process.env.AIM_TEST_LOG, 'silent'));

describe('AIM finalizers on the dev cluster', { timeout: 150_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  let registry: SimRegistryServer;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const setStatus = (resource: string, name: string, ns: string, status: object) =>
    cluster.k([
      'patch',
      resource,
      name,
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    ]);
  /** a child frozen in a state: paused, so only the test writes its status */
  const frozen = async (kind: 'AIMTemplateCache' | 'AIMArtifact', name: string, labels: object, ready: boolean) => {
    const spec =
      kind === 'AIMTemplateCache'
        ? { templateName: 'frozen-template', templateScope: 'Namespace' }
        : { sourceUri: `hf://example/${name}` };
    await apply({ apiVersion: API, kind, metadata: { name, namespace: NS, labels, annotations: PAUSED }, spec });
    if (ready) await setStatus(kind === 'AIMTemplateCache' ? 'aimtc' : 'aimart', name, NS, { status: 'Ready' });
  };
  const gone = (what: string, probe: () => Promise<unknown>) =>
    waitFor(what, async () => (await probe()) === undefined, { timeoutMs: 30_000 });

  before(async () => {
    registry = await startSimRegistryServer();
    cluster = await startOperatorTestCluster({
      name: 'aim-finalizers',
      log,
      namespaces: [NS, DOOMED, OPERATOR_NS],
      register: (mgr) =>
        aimControllerSet().register(mgr, {
          operatorNamespace: OPERATOR_NS,
          podNamespace: 'modelplane-system',
          log,
          imageRegistry: new OciRegistryClient({
            mirrors: { 'docker.io': registry.url },
            secrets: kubeSecretSource(mgr.client),
          }),
        }),
    });
    admin = cluster.admin;
  });
  after(async () => {
    await cluster?.stop();
    await registry?.close();
  });

  it('a deleted AIMService deletes the caches it created that are not Ready, and keeps the Ready ones', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMService',
      metadata: { name: 'svc', namespace: NS },
      spec: { model: { image: QWEN } },
    });
    await waitFor('the service has its finalizer', async () =>
      (await admin.get(AIMServices, 'svc', NS)).metadata.finalizers?.includes(TEMPLATE_CACHE_CLEANUP_FINALIZER),
    );
    const mine = { 'aim.eai.amd.com/service': 'svc' };
    await frozen('AIMTemplateCache', 'svc-broken', mine, false);
    await frozen('AIMTemplateCache', 'svc-ready', mine, true);
    await frozen('AIMTemplateCache', 'other-broken', { 'aim.eai.amd.com/service': 'other' }, false);

    await admin.delete(AIMServices, 'svc', NS);
    await gone('the service', () => admin.getOrUndefined(AIMServices, 'svc', NS));
    await gone('its broken cache', () => admin.getOrUndefined(AIMTemplateCaches, 'svc-broken', NS));
    assert.ok(await admin.getOrUndefined(AIMTemplateCaches, 'svc-ready', NS), 'a Ready cache keeps its weights');
    assert.ok(
      await admin.getOrUndefined(AIMTemplateCaches, 'other-broken', NS),
      "another service's cache is left alone",
    );
  });

  it('a deleted AIMTemplateCache deletes the artifacts it created that are not Ready', async () => {
    // a cache whose template does not exist: Failed, but it carries the finalizer all the same
    await apply({
      apiVersion: API,
      kind: 'AIMTemplateCache',
      metadata: { name: 'lonely', namespace: NS },
      spec: { templateName: 'no-such-template', templateScope: 'Namespace' },
    });
    await waitFor('the cache has its finalizer', async () =>
      (await admin.get(AIMTemplateCaches, 'lonely', NS)).metadata.finalizers?.includes(ARTIFACT_CLEANUP_FINALIZER),
    );
    const mine = { 'aim.eai.amd.com/template-cache.name': 'lonely' };
    await frozen('AIMArtifact', 'art-broken', mine, false);
    await frozen('AIMArtifact', 'art-ready', mine, true);
    await admin.delete(AIMTemplateCaches, 'lonely', NS);
    await gone('the cache', () => admin.getOrUndefined(AIMTemplateCaches, 'lonely', NS));
    await gone('its broken artifact', () => admin.getOrUndefined(AIMArtifacts, 'art-broken', NS));
    assert.ok(await admin.getOrUndefined(AIMArtifacts, 'art-ready', NS));
  });

  it('a namespace full of AIM objects is deleted: no finalizer holds it', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMService',
      metadata: { name: 'chat', namespace: DOOMED },
      spec: { model: { image: QWEN } },
    });
    await waitFor(
      'the chain is built: a cache with its finalizer and an artifact',
      async () => {
        const caches = (await admin.list(AIMTemplateCaches, { namespace: DOOMED })).items;
        const artifacts = (await admin.list(AIMArtifacts, { namespace: DOOMED })).items;
        return caches.some((c) => c.metadata.finalizers?.includes(ARTIFACT_CLEANUP_FINALIZER)) && artifacts.length > 0;
      },
      { timeoutMs: 60_000, detail: async () => (await admin.get(AIMServices, 'chat', DOOMED)).status },
    );
    assert.ok(
      (await admin.get(AIMServices, 'chat', DOOMED)).metadata.finalizers?.includes(TEMPLATE_CACHE_CLEANUP_FINALIZER),
    );
    await cluster.k(['delete', 'namespace', DOOMED, '--wait=false']);
    await waitFor('namespace doomed gone', async () => (await admin.getOrUndefined(Namespaces, DOOMED)) === undefined, {
      timeoutMs: 60_000,
      detail: async () => ({
        namespace: (await admin.getOrUndefined(Namespaces, DOOMED))?.status,
        left: (await cluster.kubectl(['get', 'aim', '-n', DOOMED, '-o', 'name'])).stdout,
      }),
    });
  });
});

// The base config from an image's OCI label (docs/llamastack.md, "Base config from the image") on the dev
// cluster, read through the operator's registry client from the simulated registry: a labelled image's
// config is generated from its label and recorded as oci-label; its tag moving to a new digest gives a new
// config; while the registry is down the last good config stays (and status says so), then the move is
// picked up; an image without the label falls back to the built-in config, saying so; each digest's
// labels are read once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ConfigMap, ConfigMaps } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { type SimRegistryServer, startSimRegistryServer } from '@modelplane/sim/registry/server';
import { LlamaStackDistributions } from '../../../src/apis/llamastack/index.ts';
import { OciRegistryClient } from '../../../src/controllers/aim/catalog/oci/client.ts';
import { registerLlamaStackController } from '../../../src/controllers/llamastack/index.ts';
import { Deployments } from '../../../src/controllers/llamastack/names.ts';
import { OciConfigResolver } from '../../../src/controllers/llamastack/oci-resolver.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type Json = Record<string, any>;
const NS = 'llama-oci';
const REPO = 'modelplane/llama-stack-custom';
const log = new Logger({}, parseLogLevel(process.env.LLS_TEST_LOG, 'silent'));
const cond = (o: Json | undefined, type: string) => o?.status?.conditions?.find((c: Json) => c.type === type);

/** a labelled base config whose `x_marker` tells which one the generated config came from */
const labelled = (marker: string) => ({
  'io.llamastack.config.base64': Buffer.from(
    `version: 2\ndistro_name: custom\napis: [inference]\nx_marker: ${marker}\nproviders:\n  inference: []\nserver: {port: 8321}\n`,
  ).toString('base64'),
});

describe('LlamaStackDistribution: the base config from the image label', { timeout: 180_000 }, () => {
  let cluster: OperatorTestCluster<Controller>;
  let registry: SimRegistryServer;
  const get = async (name: string) => (await cluster.admin.getOrUndefined(LlamaStackDistributions, name, NS)) as Json;
  const where = (what: string, name: string, ok: (o: Json) => boolean) =>
    waitFor(
      `${name}: ${what}`,
      async () => {
        const o = await get(name);
        return o && ok(o) ? o : undefined;
      },
      { timeoutMs: 60_000, detail: async () => (await get(name))?.status },
    );
  const mountedConfig = async (name: string) => {
    const d = (await cluster.admin.getOrUndefined(Deployments, name, NS)) as Json | undefined;
    const cm = d?.spec?.template?.spec?.volumes?.find((v: Json) => v.configMap)?.configMap?.name;
    const m = cm ? ((await cluster.admin.getOrUndefined(ConfigMaps, cm, NS)) as ConfigMap | undefined) : undefined;
    return m?.data?.['config.yaml'] ?? '';
  };

  before(async () => {
    registry = await startSimRegistryServer();
    cluster = await startOperatorTestCluster({
      name: 'llamastack-oci',
      log,
      namespaces: [NS, 'modelplane-system'],
      register: (mgr) =>
        registerLlamaStackController(mgr, {
          operatorNamespace: 'modelplane-system',
          recheckMs: 300,
          ociResolver: new OciConfigResolver(new OciRegistryClient({ mirrors: { 'docker.io': registry.url } }), {
            tagRecheckMs: 300,
            backoffBaseMs: 200,
            backoffMaxMs: 1_000,
          }),
        }),
    });
  });
  after(async () => {
    await cluster?.stop();
    await registry?.close();
  });

  it('a labelled image: generated from its label; a moved tag re-resolved; the last good kept while the registry is down', async () => {
    registry.setImage(REPO, '0.7.3', labelled('first'));
    await cluster.admin.apply({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'custom', namespace: NS },
      spec: {
        distribution: { image: `docker.io/${REPO}:0.7.3` },
        providers: { inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1' }] },
        resources: { models: [{ name: 'm' }] },
      },
    } as any);
    const first = await where('generated from the label', 'custom', (o) =>
      Boolean(o.status?.resolvedDistribution?.configSource === 'oci-label' && cond(o, 'BaseConfigResolved')),
    );
    assert.equal(cond(first, 'BaseConfigResolved').reason, 'OCILabel');
    assert.match(
      cond(first, 'BaseConfigResolved').message,
      /^base config from label io\.llamastack\.config\.base64 of image docker\.io\/modelplane\/llama-stack-custom:0\.7\.3 \(sha256:[0-9a-f]{12}\)$/,
    );
    assert.match(await mountedConfig('custom'), /x_marker: first/);

    // the tag moves to a new digest: its new label is read and rolled out
    registry.setImage(REPO, '0.7.3', labelled('second'));
    await waitFor('the moved tag rolled out', async () =>
      /x_marker: second/.test(await mountedConfig('custom')) ? true : undefined,
    );

    // the registry goes down and the tag moves meanwhile: the running config stays, status says why
    registry.setAvailable(false);
    registry.setImage(REPO, '0.7.3', labelled('third'));
    const down = await where(
      'the registry reported down',
      'custom',
      (o) => cond(o, 'BaseConfigResolved')?.reason === 'RegistryUnavailable',
    );
    assert.equal(cond(down, 'BaseConfigResolved').status, 'False');
    assert.match(
      cond(down, 'BaseConfigResolved').message,
      /^image docker\.io\/modelplane\/llama-stack-custom:0\.7\.3: its registry could not be read \(.*503.*\); using the last good base config, from label io\.llamastack\.config\.base64 of sha256:[0-9a-f]{12}; asked again every \d+ s, doubling$/,
    );
    assert.match(await mountedConfig('custom'), /x_marker: second/, 'the last good config is kept');
    assert.equal(cond(down, 'ConfigGenerated')?.status, 'True');

    registry.setAvailable(true);
    await waitFor('the move picked up once the registry is back', async () =>
      /x_marker: third/.test(await mountedConfig('custom')) ? true : undefined,
    );
    await where('resolved again', 'custom', (o) => cond(o, 'BaseConfigResolved')?.reason === 'OCILabel');

    // the tag was asked again and again; each digest's config blob was read once
    const blobReads = registry.requests.filter((p) => p.startsWith(`/v2/${REPO}/blobs/`));
    assert.equal(blobReads.length, 3, `one config read per digest: ${blobReads.join(', ')}`);
    assert.equal(new Set(blobReads).size, 3);
    assert.ok(registry.requests.filter((p) => p === `/v2/${REPO}/manifests/0.7.3`).length > 3);
  });

  it('an image without the label: the built-in config of its distribution, stated in status', async () => {
    await cluster.admin.apply({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'named', namespace: NS },
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: { inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1' }] },
      },
    } as any);
    const o = await where(
      'resolved',
      'named',
      (x) => Boolean(cond(x, 'BaseConfigResolved')) && x.status?.resolvedDistribution,
    );
    assert.equal(cond(o, 'BaseConfigResolved').reason, 'EmbeddedFallback');
    assert.match(
      cond(o, 'BaseConfigResolved').message,
      /^image docker\.io\/llamastack\/distribution-remote-vllm:0\.7\.3 \(sha256:[0-9a-f]{12}\) carries no io\.llamastack\.config\.base64 label: the built-in base config of distribution remote-vllm is used$/,
    );
    assert.equal(o.status.resolvedDistribution.configSource, 'embedded');
  });
});

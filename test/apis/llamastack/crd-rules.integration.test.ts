// The LlamaStackDistribution CRD's own rules on the embedded API server: what the schema refuses before
// any webhook or controller sees the object.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import type { KubeObject } from '@modelplane/runtime/meta';
import { allCrds } from '../../../src/cli/crds.ts';

describe('LlamaStackDistribution CRD rules', () => {
  let srv: ApiServer;
  let admin: KubeClient;
  before(async () => {
    srv = await startApiServer({ port: 0 });
    admin = await KubeClient.create(srv.kubeconfigYaml(), { fieldManager: 'test' });
    for (const crd of allCrds()) await ensureCrd(admin, crd);
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
  });
  after(() => srv?.close());

  it('v1alpha1 server.distribution: {} is refused (v1alpha2 could never hold it), naming the field', async () => {
    await assert.rejects(
      admin.create({
        apiVersion: 'llamastack.io/v1alpha1',
        kind: 'LlamaStackDistribution',
        metadata: { name: 'empty', namespace: 'a' },
        spec: { server: { distribution: {} } },
      } as KubeObject),
      /spec\.server\.distribution: Invalid value: "object": server\.distribution: set name or image/,
    );
  });

  const v2 = (name: string, spec: Record<string, unknown>) =>
    admin.create({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name, namespace: 'a' },
      spec: { distribution: { name: 'starter' }, ...spec },
    } as KubeObject);

  it('spec.disabled takes only the API names of Llama Stack 0.7.3 (a typo is refused, not ignored)', async () => {
    await assert.rejects(
      v2('typo', { disabled: ['vector-io'] }),
      /spec\.disabled\[0\]: Unsupported value: "vector-io"/,
    );
    await assert.rejects(v2('old', { disabled: ['telemetry'] }), /Unsupported value: "telemetry"/);
    await v2('ok', { disabled: ['vector_io', 'files'] });
  });

  it('networking.tls.enabled is refused until serving TLS is wired, saying what to use instead', async () => {
    await assert.rejects(
      v2('tls', { networking: { tls: { enabled: true, secretName: 'tls' } } }),
      /networking\.tls\.enabled: serving TLS from the Llama Stack server is not supported yet/,
    );
    await v2('ca', { networking: { tls: { caBundle: { configMapName: 'ca' } } } });
  });
});

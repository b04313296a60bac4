// The controller reads the running server once its rollout completes (docs/llamastack.md, "Ready means chat
// works"), on the dev cluster, where the operator reaches the simulated server through its Service as it
// would through cluster DNS: the server's version and its providers with their health land in status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Controller } from '@modelplane/runtime/controller';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { convertLlamaStackDistribution, LlamaStackDistributions } from '../../../src/apis/llamastack/index.ts';
import { registerLlamaStackController } from '../../../src/controllers/llamastack/index.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type Json = Record<string, any>;
const NS = 'llama-health';
const log = new Logger({}, parseLogLevel(process.env.LLS_TEST_LOG, 'silent'));

describe('LlamaStackDistribution: the running server read into status', { timeout: 180_000 }, () => {
  let cluster: OperatorTestCluster<Controller>;
  before(async () => {
    let resolve: ((ns: string, s: string, p: number) => string | undefined) | undefined;
    cluster = await startOperatorTestCluster({
      name: 'llamastack-health',
      log,
      namespaces: [NS, 'modelplane-system'],
      register: (mgr) =>
        registerLlamaStackController(mgr, {
          operatorNamespace: 'modelplane-system',
          serviceUrl: async (ns, s, p) => resolve?.(ns, s, p),
        }),
    });
    resolve = (ns, s, p) => cluster.dev.serviceEndpoints.resolve(ns, s, p);
  });
  after(() => cluster?.stop());

  it('Ready with ServerHealthy, the server version (v1alpha1 column too) and each provider with its health', async () => {
    await cluster.admin.apply({
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'h', namespace: NS },
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: { inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1' }] },
        resources: { models: [{ name: 'm' }] },
      },
    } as any);
    const ready = (await waitFor(
      'Ready with the server read',
      async () => {
        const o = (await cluster.admin.getOrUndefined(LlamaStackDistributions, 'h', NS)) as Json | undefined;
        return o?.status?.phase === 'Ready' && o.status.version?.llamaStackServerVersion ? o : undefined;
      },
      {
        timeoutMs: 90_000,
        detail: async () => (await cluster.admin.getOrUndefined(LlamaStackDistributions, 'h', NS))?.status,
      },
    )) as Json;
    assert.equal(ready.status.version.llamaStackServerVersion, 'simulated');
    assert.equal(ready.status.version.operatorVersion, '0.1.0');
    const cond = ready.status.conditions.find((c: Json) => c.type === 'ServerHealthy');
    assert.equal(cond?.status, 'True');
    assert.match(cond.message, /Llama Stack simulated is healthy, \d+ provider\(s\) answering/);
    const vllm = ready.status.distributionConfig.providers.find((p: Json) => p.provider_id === 'vllm');
    assert.deepEqual(vllm.health, { status: 'Not Implemented', message: 'Provider does not implement health check' });
    // v1alpha1's Server Version column reads the same field through the conversion
    const v1 = convertLlamaStackDistribution(ready as any, 'llamastack.io/v1alpha1') as Json;
    assert.equal(v1.status.version.llamaStackServerVersion, 'simulated');
  });
});

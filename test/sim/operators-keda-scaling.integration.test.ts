// The simulated KEDA given a Prometheus (as `modelplane dev` gives it dev's): it polls a ScaledObject's
// prometheus triggers every pollingInterval and scales the target as KEDA and its HPA do — to 0 when no
// trigger was ever active, from 0 on an active trigger, 1..N by the HPA arithmetic, nothing on a failing query
// — keeping status.lastActiveTime and the Active condition. A stub Prometheus answers what the test sets.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ScaledObjects, SimDeployments } from '@modelplane/sim/operators';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const NS = 'keda-scaling';

describe('simulated KEDA scaling on its prometheus triggers', () => {
  let c: OperatorsCluster;
  let prometheus: Server;
  /** the value each query answers; a query missing from it fails with a Prometheus error */
  const answers = new Map<string, number>();
  /** how often each query was asked */
  const asked = new Map<string, number>();
  const replicas = async () => (await getObj(c.client, SimDeployments, 'web', NS))?.spec?.replicas;

  before(async () => {
    prometheus = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
      asked.set(query, (asked.get(query) ?? 0) + 1);
      const value = answers.get(query);
      res.setHeader('content-type', 'application/json');
      if (value === undefined) {
        res.statusCode = 400;
        res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: `unknown query ${query}` }));
        return;
      }
      res.end(
        JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [{ metric: {}, value: [Date.now() / 1000, String(value)] }] },
        }),
      );
    });
    await new Promise<void>((r) => prometheus.listen(0, '127.0.0.1', r));
    const { port } = prometheus.address() as AddressInfo;
    c = await startOperatorsCluster({ only: ['keda'], kedaPrometheus: { baseUrl: `http://127.0.0.1:${port}` } });
    await ensureNamespace(c.client, NS);
    await c.client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
  });
  after(async () => {
    await c?.close();
    prometheus?.close();
  });

  it('a trigger never active takes the target to 0; an active one brings it back; the HPA part sizes it; a failing query changes nothing', async () => {
    answers.set('desired', 0);
    answers.set('queue', 0);
    await c.client.create({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { name: 'web' },
        minReplicaCount: 0,
        maxReplicaCount: 3,
        pollingInterval: 1,
        cooldownPeriod: 1,
        advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } },
        triggers: [
          {
            type: 'prometheus',
            name: 'desired',
            metadata: { serverAddress: 'http://p', query: 'desired', threshold: '1' },
          },
          {
            type: 'prometheus',
            name: 'queue',
            metadata: { serverAddress: 'http://p', query: 'queue', threshold: '1000000', activationThreshold: '0' },
          },
        ],
      },
    });
    const so = await eventually(
      'no trigger ever active: the target at 0, Active=False',
      async () => {
        const o = await getObj(c.client, ScaledObjects, 'web', NS);
        return (await replicas()) === 0 && condition(o, 'Active')?.status === 'False' ? o : undefined;
      },
      30_000,
    );
    assert.equal((so.status as { lastActiveTime?: string }).lastActiveTime, undefined);

    answers.set('queue', 1); // a request waits: the second trigger activates, its huge threshold asks for 1 at most
    const active = await eventually(
      'woken to 1, Active=True',
      async () => {
        const o = await getObj(c.client, ScaledObjects, 'web', NS);
        return (await replicas()) === 1 && condition(o, 'Active')?.status === 'True' ? o : undefined;
      },
      30_000,
    );
    assert.ok((active.status as { lastActiveTime?: string }).lastActiveTime, 'lastActiveTime set');

    answers.set('desired', 3);
    await eventually('the HPA part: 3', async () => ((await replicas()) === 3 ? true : undefined), 30_000);
    answers.set('desired', 9);
    await eventually(
      'capped at maxReplicaCount 3, still 3',
      async () => ((await replicas()) === 3 ? true : undefined),
      30_000,
    );

    answers.delete('desired'); // Prometheus fails: KEDA scales nothing, not even down
    answers.set('queue', 0);
    const before = Date.now();
    await eventually('a few polls with the failing query', async () =>
      Date.now() - before > 3_000 ? true : undefined,
    );
    assert.equal(await replicas(), 3);

    answers.set('desired', 1);
    await eventually('back to 1 (stabilization 0)', async () => ((await replicas()) === 1 ? true : undefined), 30_000);
    answers.set('desired', 0);
    await eventually(
      'inactive past the 1 s cooldown: 0',
      async () => ((await replicas()) === 0 ? true : undefined),
      30_000,
    );
  });
});

import { it } from 'node:test';
import { startSimCluster, waitFor } from './workloads-fixture.ts';
import { Deployments, Pods } from '../../src/sim/workloads/kinds.ts';
it('scale', async () => {
  const c = await startSimCluster();
  for (let i = 0; i < 6; i++) await c.node(`n${i}`, { cpu: '64', memory: '512Gi', pods: '200', 'nvidia.com/gpu': '8' });
  const t0 = Date.now();
  const N = 30;
  for (let i = 0; i < N; i++) {
    await c.admin.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `d${i}`, namespace: 'default' }, spec: { replicas: 10, selector: { matchLabels: { app: `d${i}` } }, template: { metadata: { labels: { app: `d${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } } } } as never);
  }
  console.log(`created in ${Date.now() - t0} ms`);
  await waitFor(async () => (await c.admin.list(Pods, { namespace: 'default' })).items.length === 300, 'all created', 120_000);
  console.log(`pods created in ${Date.now() - t0} ms`);
  await waitFor(async () => (await c.admin.list(Pods, { namespace: 'default' })).items.every((p) => p.spec.nodeName), 'all bound', 120_000);
  console.log(`pods bound in ${Date.now() - t0} ms`);
  await waitFor(async () => (await c.admin.list(Deployments, { namespace: 'default' })).items.every((d) => d.status?.availableReplicas === 10), 'all ready', 120_000);
  console.log(`300 pods ready in ${Date.now() - t0} ms`);
  await c.close();
});

// Benchmark of the controller runtime on the embedded API server: a trivial controller makes one child
// ConfigMap per Widget and writes the Widget's status. Measures how fast 1,000 Widgets converge, how many
// API requests the operator makes per object (from the server's audit log: discovery, lists, watches and
// writes all count), and what a resync with nothing changed costs (target: zero reads, zero writes).
//
//   npm run bench -- runtime [--objects 1000] [--concurrency 8]
//
// Last line: runtime: <N> objects/s (requests/object=<x>, resync-writes=<n>, resync-reads=<n>)

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startApiServer } from '@modelplane/apiserver';
import {
  type ConfigMap,
  ConfigMaps,
  type CustomResourceDefinition,
  KubeClient,
  needsApply,
} from '@modelplane/runtime/client';
import { ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import { crdFromZod, ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { controllerRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { z } from 'zod';
import { smokeOr } from './lib/smoke.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: smokeOr('1000', '20') },
    concurrency: { type: 'string', default: '8' },
  },
});
const N = Number(values.objects);
const CONCURRENCY = Number(values.concurrency);
const NS = 'bench';
const MANAGER = 'runtime-bench';
const LABEL = 'app.kubernetes.io/managed-by';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { observedGeneration?: number; configMap?: string };
}
const Widgets = kindRef<Widget>('bench.modelplane.io/v1', 'Widget');

const CRD: CustomResourceDefinition = crdFromZod({
  group: 'bench.modelplane.io',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      specRequired: false,
      spec: z.object({ size: z.number().int().optional() }),
      status: z.object({ observedGeneration: z.number().int().optional(), configMap: z.string().optional() }),
    },
  ],
});

const log = (msg: string) => process.stderr.write(`${msg}\n`);

async function main(): Promise<void> {
  const srv = await startApiServer({ port: 0 });
  const admin = await KubeClient.create(srv.kubeconfigYaml(), { fieldManager: 'bench-admin' });
  await ensureCrd(admin, CRD);
  await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const token = randomBytes(18).toString('base64url');
  srv.addToken(token, { username: MANAGER, groups: ['system:masters', 'system:authenticated'] });
  const operatorRequests = () => srv.auditEntries().filter((e) => e.user === MANAGER);

  const mgr = await Manager.create({
    kubeconfig: srv.kubeconfigYaml({ token, user: MANAGER }),
    logger: new Logger({}, 'silent'),
  });
  mgr.cache.configure(ConfigMaps, { namespace: NS, labelSelector: `${LABEL}=${MANAGER}` });
  mgr.cache.configure(Widgets, { namespace: NS });
  let reconciles = 0;
  const controller = mgr
    .controller(MANAGER)
    .for(Widgets, { predicates: [ignoreOwnStatusWrites(MANAGER)] })
    .owns(ConfigMaps)
    .withOptions({ concurrency: CONCURRENCY })
    .complete(async (req, ctx) => {
      reconciles++;
      const w = await ctx.cache.get(Widgets, req.name, req.namespace);
      if (!w) return;
      const name = `${req.name}-config`;
      const desired: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: req.namespace, labels: { [LABEL]: MANAGER }, ownerReferences: [controllerRef(w)] },
        data: { size: String(w.spec?.size ?? 0) },
      };
      if (needsApply(desired, await ctx.cache.get(ConfigMaps, name, req.namespace), MANAGER))
        await ctx.client.apply(desired);
      const status: Widget = {
        apiVersion: Widgets.apiVersion,
        kind: Widgets.kind,
        metadata: { name: req.name, namespace: req.namespace },
        status: { observedGeneration: w.metadata.generation ?? 0, configMap: name },
      };
      if (needsApply(status, w, MANAGER, 'status')) await ctx.client.applyStatus(status);
    });
  await mgr.start();

  const converged = async () => {
    const widgets = await mgr.cache.list(Widgets);
    if (widgets.length < N) return false;
    const cms = await mgr.cache.list(ConfigMaps);
    return (
      cms.length >= N &&
      widgets.every(
        (w) =>
          w.status?.configMap === `${w.metadata.name}-config` && w.status.observedGeneration === w.metadata.generation,
      )
    );
  };

  log(`runtime bench: ${N} widgets, ${CONCURRENCY} workers`);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < N) {
        const i = next++;
        await admin.create({
          apiVersion: Widgets.apiVersion,
          kind: Widgets.kind,
          metadata: { name: `w-${i}`, namespace: NS },
          spec: { size: i },
        });
      }
    }),
  );
  const created = performance.now();
  while (!(await converged())) await new Promise((r) => setTimeout(r, 10));
  const elapsedS = (performance.now() - t0) / 1000;
  while (controller.pendingWork > 0) await new Promise((r) => setTimeout(r, 10));
  const requests = operatorRequests();
  const writes = requests.filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb)).length;
  log(
    `created ${N} in ${((created - t0) / 1000).toFixed(2)} s; converged in ${elapsedS.toFixed(2)} s; ${reconciles} reconciles; operator requests: ${requests.length} (${writes} writes)`,
  );

  // a resync with nothing changed: every widget reconciled again, from the cache only
  await new Promise((r) => setTimeout(r, 500));
  const mark = srv.auditEntries().length;
  const before = reconciles;
  await controller.resync();
  while (reconciles < before + N || controller.pendingWork > 0) await new Promise((r) => setTimeout(r, 10));
  const during = srv
    .auditEntries()
    .slice(mark)
    .filter((e) => e.user === MANAGER && e.verb !== 'watch');
  const resyncWrites = during.filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb)).length;
  const resyncReads = during.length - resyncWrites;

  await mgr.stop();
  admin.close();
  await srv.close();
  const rate = Math.round(N / elapsedS);
  console.log(
    `runtime: ${rate} objects/s (requests/object=${(requests.length / N).toFixed(2)}, resync-writes=${resyncWrites}, resync-reads=${resyncReads})`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

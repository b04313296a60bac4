// The AIM bench's real-chain part (docs/aim.md, "A running service is never disturbed"): N AIMServices by
// image over M model images on `modelplane dev`'s cluster (the aim controller set with the simulated
// registry, nodes, Jobs and KServe), nothing pre-readied: each image's model is created by its first
// service, its templates come from discovery Jobs, each service selects one, and each template gets its own
// Shared cache, artifact, PVC and download. Reported: how many services reached Running, the time, and the
// InferenceService rollouts per service (its metadata.generation once converged: 1 means it was built once,
// from a Ready chain, and never rewritten).

import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { DEFAULT_NODE_POOL } from '@modelplane/sim/cluster';
import { startDevCluster } from '../../src/cli/dev/cluster.ts';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { AIMServices, AIMTemplateCaches } from '../../src/controllers/aim/shared/kinds.ts';
import { progress, waitFor } from './harness.ts';

const NS = 'bench-aim-chain';
const IMAGES = [
  'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
  'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5',
  'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5',
  'amdenterpriseai/aim-mistralai-mistral-7b-instruct-v0-3:0.8.2',
];
const InferenceServices = kindRef<KubeObject>('serving.kserve.io/v1beta1', 'InferenceService');
type Json = Record<string, any>;

export interface ChainOptions {
  services: number;
  models: number;
  timeoutMs: number;
}

export async function aimChainFigures(opts: ChainOptions): Promise<Record<string, string | number>> {
  const models = Math.max(1, Math.min(opts.models, IMAGES.length));
  progress(`  real chain: ${opts.services} services by image over ${models} models (discovery, selection, caches)`);
  // one AMD GPU per service: enough AMD nodes for all of them (the default pool's 16 GPUs held 16 of 40)
  const nodePool = {
    ...DEFAULT_NODE_POOL,
    amdNodes: Math.max(DEFAULT_NODE_POOL.amdNodes, Math.ceil(opts.services / 8)),
  };
  const dev = await startDevCluster({
    port: 0,
    log: new Logger({}, 'silent'),
    controllers: true,
    sets: [aimControllerSet()],
    nodePool,
  });
  try {
    const admin = dev.manager.client.withFieldManager('bench-user');
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const start = Date.now();
    for (let i = 0; i < opts.services; i++)
      await admin.apply({
        apiVersion: AIMServices.apiVersion,
        kind: AIMServices.kind,
        metadata: { name: `chain-${i}`, namespace: NS },
        spec: { model: { image: IMAGES[i % models]! } },
      } as KubeObject);
    const running = async () =>
      (await admin.list(AIMServices, { namespace: NS })).items.filter((s) => s.status?.status === 'Running').length;
    let converged = 0;
    try {
      await waitFor(
        'every chain service Running',
        async () => (converged = await running()) === opts.services,
        opts.timeoutMs,
      );
    } catch {
      // a chain that does not converge is a failure, named by what the others wait for
      throw new Error(
        `aim chain: ${converged} of ${opts.services} AIMServices Running after ${opts.timeoutMs} ms; the others: ${await stuck(admin)}`,
      );
    }
    const ms = Date.now() - start;
    const isvcs = (await admin.list(InferenceServices, { namespace: NS })).items;
    const rollouts = isvcs.map((i) => i.metadata.generation ?? 1);
    const caches = (await admin.list(AIMTemplateCaches, { namespace: NS })).items.length;
    const mean = rollouts.length ? rollouts.reduce((a, b) => a + b, 0) / rollouts.length : 0;
    return {
      'chain-services': opts.services,
      'chain-models': models,
      'chain-caches': caches,
      'chain-converged': `${converged}/${opts.services}`,
      'chain-convergence': (converged / opts.services).toFixed(2),
      'chain-ms': ms,
      'isvc-rollouts/service': mean.toFixed(2),
      'isvc-rollouts-max': Math.max(0, ...rollouts),
    };
  } finally {
    await dev.stop();
  }
}

/** the services not Running, counted by their status and first condition that is not True */
async function stuck(admin: {
  list: (kind: typeof AIMServices, o: { namespace: string }) => Promise<{ items: KubeObject[] }>;
}): Promise<string> {
  const counts = new Map<string, number>();
  for (const s of (await admin.list(AIMServices, { namespace: NS })).items as Array<KubeObject & { status?: Json }>) {
    if (s.status?.status === 'Running') continue;
    const waiting = (s.status?.conditions ?? []).find((c: Json) => c.status !== 'True');
    const why = `${s.status?.status ?? 'no status'}${waiting ? ` (${waiting.type}: ${waiting.reason})` : ''}`;
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  return [...counts].map(([why, n]) => `${n} ${why}`).join(', ');
}

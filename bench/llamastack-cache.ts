// Benchmark of what the LlamaStackDistribution controller keeps in memory: its heap with one
// LlamaStackDistribution (referencing a Secret and an override-free generated config) before and after
// 10,000 unrelated Secrets and 10,000 unrelated ConfigMaps (1 KiB each) appear in the same namespace. The
// API server runs in a child process, which also writes the flood, so the heap measured is the operator's
// alone. A labelled sentinel
// ConfigMap written after the flood, once seen by the controller's watched informer, proves that every
// earlier watch event has been delivered to every informer of the process (one watch stream per informer,
// in resourceVersion order, all opened before the flood).
//
//   npm run bench -- llamastack-cache [--objects 10000]
//
// Last line: llamastack-cache: <growth> MiB heap growth (objects=<n>, before=<MiB>, after=<MiB>, cached-configmaps=<n>)
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startApiServer } from '@modelplane/apiserver';
import { ConfigMaps, KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { allCrds } from '../src/cli/crds.ts';
import { registerLlamaStackController } from '../src/controllers/llamastack/index.ts';
import { GENERATED_CONFIGMAPS, WATCHED_CONFIGMAPS } from '../src/controllers/llamastack/names.ts';
import { smokeOr } from './lib/smoke.ts';

const NS = 'bench';
const OPERATOR_NS = 'modelplane-system';

/** the child process: the API server, and the flood of unrelated objects when asked for it */
async function serve(): Promise<void> {
  const srv = await startApiServer({ port: 0 });
  const admin = await KubeClient.create(srv.kubeconfigYaml(), { fieldManager: 'bench-flood' });
  process.on('message', async (m: { flood: number }) => {
    const started = Date.now();
    await flood(admin, m.flood);
    process.send?.({ flooded: Date.now() - started });
  });
  process.send?.({ kubeconfig: srv.kubeconfigYaml() });
}

interface ServerProcess {
  kubeconfig: string;
  /** creates n Secrets and n ConfigMaps; resolves with the time it took */
  flood(n: number): Promise<number>;
  stop(): void;
}

function startServerProcess(): Promise<ServerProcess> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], { execArgv: ['--import', 'tsx'] });
  const flood = (n: number) =>
    new Promise<number>((resolve) => {
      child.once('message', (m: { flooded: number }) => resolve(m.flooded));
      child.send({ flood: n });
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { kubeconfig: string }) =>
      resolve({ kubeconfig: m.kubeconfig, flood, stop: () => child.kill() }),
    );
    child.once('exit', (code) => reject(new Error(`API server process exited with ${code}`)));
  });
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function flood(admin: KubeClient, n: number): Promise<void> {
  const payload = 'x'.repeat(1024);
  const objects: KubeObject[] = [];
  for (let i = 0; i < n; i++) {
    const metadata = { name: `unrelated-${i}`, namespace: NS, labels: { team: 'other' } };
    objects.push({ apiVersion: 'v1', kind: 'Secret', metadata, stringData: { v: payload } } as KubeObject);
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { v: payload } } as KubeObject);
  }
  let next = 0;
  const worker = async () => {
    while (next < objects.length) await admin.create(objects[next++]!);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function main(n: number): Promise<void> {
  const server = await startServerProcess();
  const admin = await KubeClient.create(server.kubeconfig, { fieldManager: 'bench-admin' });
  for (const crd of allCrds()) await ensureCrd(admin, crd);
  for (const name of [NS, OPERATOR_NS]) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await admin.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'vllm-creds', namespace: NS },
    stringData: { token: 't' },
  } as KubeObject);
  const mgr = await Manager.create({ kubeconfig: server.kubeconfig, logger: new Logger({}, 'silent') });
  await registerLlamaStackController(mgr, { operatorNamespace: OPERATOR_NS });
  await mgr.start();
  await admin.apply({
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name: 'one', namespace: NS },
    spec: {
      distribution: { name: 'remote-vllm' },
      providers: {
        inference: [
          { id: 'vllm', provider: 'vllm', endpoint: 'http://v:8000/v1', apiKey: { name: 'vllm-creds', key: 'token' } },
        ],
      },
    },
  } as KubeObject);
  const generated = () => mgr.cache.list(ConfigMaps, { namespace: NS }, GENERATED_CONFIGMAPS);
  await until('the generated ConfigMap', async () => (await generated()).length === 1);
  const before = heapMiB();
  const ms = await server.flood(n);
  process.stderr.write(`created ${2 * n} Secrets and ConfigMaps in ${ms} ms\n`);
  await admin.apply({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'sentinel', namespace: NS, labels: { 'llamastack.io/watch': 'true' } },
    data: { v: '1' },
  } as KubeObject);
  await until(
    'the sentinel in the watched informer',
    async () => (await mgr.cache.get(ConfigMaps, 'sentinel', NS, WATCHED_CONFIGMAPS)) !== undefined,
  );
  const after = heapMiB();
  if (process.env.BENCH_DEBUG)
    for (const [k, p] of (mgr.cache as any).informers) process.stderr.write(`${k}: ${(await p).store.list().length}\n`);
  const cached = (await generated()).length + (await mgr.cache.list(ConfigMaps, {}, WATCHED_CONFIGMAPS)).length;
  await mgr.stop();
  server.stop();
  console.log(
    `llamastack-cache: ${(after - before).toFixed(1)} MiB heap growth (objects=${2 * n}, before=${before.toFixed(1)}, after=${after.toFixed(1)}, cached-configmaps=${cached})`,
  );
}

const { values } = parseArgs({
  options: { objects: { type: 'string', default: smokeOr('10000', '100') }, serve: { type: 'boolean' } },
});
if (values.serve) await serve();
else {
  await main(Number(values.objects));
  process.exit(0);
}

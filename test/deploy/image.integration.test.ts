// deploy/Dockerfile replayed in an empty folder (test/deploy/dockerfile.ts: no container engine can pull a base
// image here): exactly what its COPY lines copy, its RUN steps run there (`npm ci --omit=dev` against the
// lockfile), then `modelplane run --controllers kubeairunway-core` and `modelplane provider kaito` started from
// that folder the way the image's ENTRYPOINT starts them, each under its own ServiceAccount and the RBAC the
// image's own `modelplane rbac` prints, against a test cluster with the simulated KAITO operator, until a
// ModelDeployment is Running. It prints one line: what the image adds to its base image and each process's start
// time and resident memory (cold: each process gets an empty temporary folder, like the chart's emptyDir).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { CHART_PATH, ofKind, parseManifests, renderChart, run } from './chart.ts';
import { containerCommand, inFolder, parseDockerfile, type RunStep } from './dockerfile.ts';
import { replayDockerfile } from './replay.ts';

const DOCKERFILE = parseDockerfile(readFileSync('deploy/Dockerfile', 'utf8'));
const IMAGE = DOCKERFILE.image;
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const NS = 'modelplane-system';
/** the npm cache a BuildKit cache mount on it keeps between builds: this machine's, so the replay installs offline */
const NPM_CACHE_TARGETS = new Set(['/root/.npm', '/home/node/.npm']);

/** every file under `dir` (symlinks not followed) */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const s = lstatSync(p);
    return s.isDirectory() ? filesUnder(p) : [p];
  });
}

/** resident memory of a process and its descendants (tsx's esbuild service), from /proc */
function treeRssKb(pid: number): number {
  let rss = 0;
  try {
    rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    for (const task of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean))
        rss += treeRssKb(Number(child));
  } catch {}
  return rss;
}

/** the environment of a RUN step: a fresh HOME, and this machine's npm cache only where the step mounts one */
function buildEnv(home: string): (step: RunStep) => Record<string, string> {
  return (step) => ({
    PATH: process.env.PATH!,
    HOME: home,
    // a step without the cache mount gets a private cache: it may clean it, never this machine's
    npm_config_cache: step.cacheMounts.some((t) => NPM_CACHE_TARGETS.has(t))
      ? (process.env.npm_config_cache ?? join(homedir(), '.npm'))
      : join(home, '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  });
}

/** where the replay writes (about 110 MB, mostly the build stage's node_modules): memory when the machine has a tmpfs */
function scratchParent(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

interface Container {
  name: string;
  child: ChildProcess;
  output: () => string;
  startedMs: Promise<number>;
  exited: Promise<unknown>;
}

/** starts the image's ENTRYPOINT with `args` from the replayed folder, with the image's ENV and a fresh /tmp */
function startContainer(appDir: string, scratch: string, name: string, args: string[]): Container {
  const cmd = containerCommand(IMAGE, appDir, { args });
  const tmp = mkdtempSync(join(scratch, `${name}-tmp-`));
  const env = {
    PATH: process.env.PATH!,
    HOME: tmp,
    TMPDIR: tmp,
    ...IMAGE.env,
    POD_NAMESPACE: NS,
    MODELPLANE_LOG_LEVEL: 'info',
  };
  const spawned = Date.now();
  const child = spawn(cmd.file, cmd.args, { cwd: cmd.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  const exited = new Promise((r) => child.once('exit', r));
  const startedMs = waitFor(
    `${name} started`,
    () => {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${out}`);
      return /"msg":"operator started"/.test(out) && Date.now() - spawned;
    },
    { timeoutMs: 180_000, intervalMs: 50, detail: () => out },
  );
  return { name, child, output: () => out, startedMs, exited };
}

describe('deploy/Dockerfile replayed in an empty folder runs the operator', { timeout: 600_000 }, () => {
  let scratch: string;
  let appDir: string;
  let cluster: DevTestCluster | undefined;
  const containers: Container[] = [];
  const steps: string[] = [];

  before(async () => {
    scratch = mkdtempSync(join(scratchParent(), 'modelplane-image-'));
    const root = await replayDockerfile(DOCKERFILE, process.cwd(), join(scratch, 'stages'), {
      env: buildEnv(join(scratch, 'build-home')),
      onStep: (step, ms) => steps.push(`${step} (${ms} ms)`),
    });
    appDir = inFolder(root, IMAGE.workdir);
  });
  after(async () => {
    for (const c of containers) if (c.child.exitCode === null) c.child.kill('SIGTERM');
    await Promise.all(containers.map((c) => c.exited));
    await cluster?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('holds the bundle, its licences, the dashboard front end and nothing else: no node_modules, no TypeScript, no API server, no simulators', (t) => {
    t.diagnostic(steps.join('\n'));
    const entry = containerCommand(IMAGE, appDir).args[0]!;
    assert.ok(existsSync(entry), `the ENTRYPOINT's ${entry} is not in the image`);
    const files = filesUnder(appDir).map((f) => relative(appDir, f));
    for (const f of files) {
      assert.ok(!f.split('/').includes('node_modules'), `the image holds node_modules (${f})`);
      assert.ok(!/\.[mc]?ts$/.test(f), `the image holds TypeScript (${f})`);
    }
    // esbuild names each bundled module's source path in a comment: runtime is in, the dev packages are not
    const bundle = readFileSync(entry, 'utf8');
    assert.match(bundle, /^\/\/ packages\/runtime\/src\//m);
    assert.match(bundle, /^\/\/ node_modules\/@kubernetes\/client-node\//m);
    assert.doesNotMatch(
      bundle,
      /^\/\/ (packages\/(apiserver|sim)|node_modules\/(@modelplane\/(apiserver|sim)|tsx|vite|typescript))\//m,
    );
    const notices = readFileSync(join(dirname(entry), 'THIRD_PARTY_LICENSES.txt'), 'utf8');
    assert.match(notices, /^=== @kubernetes\/client-node@[\d.]+ \(Apache-2\.0\)\n\n\s*Apache License/m);
  });

  it('runs `modelplane run --controllers kubeairunway-core` and `modelplane provider kaito` until a ModelDeployment is Running', async (t) => {
    cluster = await startDevTestCluster();
    // the image's own `modelplane rbac`, as a platform team would render it
    const rbac = containerCommand(IMAGE, appDir, {
      args: ['rbac', '--controllers', 'kubeairunway-core,provider-kaito', '--namespace', NS],
    });
    const printed = await run(rbac.file, rbac.args, { PATH: process.env.PATH!, ...IMAGE.env });
    assert.equal(printed.code, 0, printed.stderr);
    for (const o of parseManifests(printed.stdout)) await cluster.admin.apply(o as KubeObject);
    const kubeconfig = async (sa: string) => {
      const file = join(scratch, `${sa}.kubeconfig`);
      writeFileSync(file, await cluster!.serviceAccountKubeconfig(NS, sa));
      return file;
    };
    const local = ['--http-port', '0', '--http-host', '127.0.0.1'];
    const coreConfig = await kubeconfig('modelplane-kubeairunway-core');
    const kaitoConfig = await kubeconfig('modelplane-provider-kaito');
    containers.push(
      startContainer(appDir, scratch, 'run', [
        'run',
        '--controllers',
        'kubeairunway-core',
        '--kubeconfig',
        coreConfig,
        ...local,
      ]),
      startContainer(appDir, scratch, 'provider-kaito', ['provider', 'kaito', '--kubeconfig', kaitoConfig, ...local]),
    );
    const started = await Promise.all(containers.map((c) => c.startedMs));

    for (const f of ['00-namespace', '40-modeldeployment-cpu'])
      for (const d of parseAllDocuments(readFileSync(`examples/quickstart/${f}.yaml`, 'utf8')))
        await cluster.admin.apply(d.toJS() as KubeObject);
    const md = await waitFor(
      'ModelDeployment quickstart/gemma-cpu Running',
      async () => {
        const o = JSON.parse(
          await cluster!.k(['get', 'modeldeployment', 'gemma-cpu', '-n', 'quickstart', '-o', 'json']),
        );
        return o.status?.phase === 'Running' ? o : undefined;
      },
      {
        timeoutMs: 120_000,
        intervalMs: 250,
        detail: () => containers.map((c) => `--- ${c.name}\n${c.output().slice(-3000)}`).join('\n'),
      },
    );
    assert.equal(md.status.provider?.name, 'kaito');
    assert.equal(md.status.provider?.resourceKind, 'Workspace');
    for (const c of containers) assert.equal(c.child.exitCode, null, `${c.name} is still running`);

    const rssMb = containers.map((c) => Math.round(treeRssKb(c.child.pid!) / 1024));
    const files = filesUnder(appDir);
    const imageMb = (files.reduce((sum, f) => sum + statSync(f).size, 0) / (1 << 20)).toFixed(1);
    t.diagnostic(
      `image: ${imageMb} MB in ${files.length} files over the base image; ${containers
        .map((c, i) => `${c.name} started in ${(started[i]! / 1000).toFixed(1)} s, RSS ${rssMb[i]} MB`)
        .join('; ')}`,
    );
  });

  it('serves the dashboard from the image: `dashboard --auth tokenreview` answers a signed-in person with its front end', async () => {
    assert.ok(cluster, 'the cluster of the previous test');
    assert.ok(existsSync(join(appDir, 'web/dist/index.html')), 'the front end is in the image');
    const person = /token: (\S+)/.exec(await cluster.serviceAccountKubeconfig(NS, 'modelplane-kubeairunway-core'))?.[1];
    assert.ok(person, 'a ServiceAccount token to sign in with');
    const cmd = containerCommand(IMAGE, appDir, {
      args: [
        'dashboard',
        '--auth',
        'tokenreview',
        '--address',
        '127.0.0.1',
        '--port',
        '0',
        '--kubeconfig',
        cluster.kubeconfig,
      ],
    });
    const tmp = mkdtempSync(join(scratch, 'dashboard-tmp-'));
    const child = spawn(cmd.file, cmd.args, {
      cwd: cmd.cwd,
      env: { PATH: process.env.PATH!, HOME: tmp, TMPDIR: tmp, ...IMAGE.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (b) => (out += b));
    child.stderr!.on('data', (b) => (out += b));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const url = await waitFor(
        'the dashboard to listen',
        () => {
          if (child.exitCode !== null) throw new Error(`dashboard exited ${child.exitCode}:\n${out}`);
          return /dashboard: (http:\/\/\S+)/.exec(out)?.[1];
        },
        { timeoutMs: 120_000, intervalMs: 50, detail: () => out },
      );
      const anonymous = await fetch(url);
      assert.equal(anonymous.status, 401, 'nobody signed in: refused');
      const page = await fetch(url, { headers: { Authorization: `Bearer ${person}` } });
      assert.equal(page.status, 200, out);
      assert.match(await page.text(), /<div id="root">/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('runs as a numeric non-root user, the one the chart sets', () => {
    assert.match(IMAGE.user ?? '', /^\d+(:\d+)?$/, 'USER must be numeric so the kubelet can enforce runAsNonRoot');
    const values = parseYaml(readFileSync(`${CHART_PATH}/values.yaml`, 'utf8'));
    assert.equal(Number(IMAGE.user!.split(':')[0]), values.podSecurityContext.runAsUser);
    assert.notEqual(values.podSecurityContext.runAsUser, 0);
  });

  it("the chart's appVersion and default image tag are package.json's version", async () => {
    const chart = parseYaml(readFileSync(`${CHART_PATH}/Chart.yaml`, 'utf8'));
    assert.equal(chart.apiVersion, 'v2');
    assert.equal(chart.appVersion, PACKAGE.version);
    const { objects } = await renderChart('modelplane-system', [
      '--set',
      'image.repository=registry.example/modelplane',
    ]);
    for (const d of ofKind(objects, 'Deployment'))
      assert.equal(d.spec.template.spec.containers[0].image, `registry.example/modelplane:${PACKAGE.version}`);
  });
});

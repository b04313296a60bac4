// Runs a controller set the way a cluster would: as its own `modelplane run` / `modelplane provider` process,
// authenticated as its own ServiceAccount and authorised only by the RBAC `modelplane rbac` generates for it.
// Tests then read the API server's audit log by that user to prove least privilege (no 403s, no Secrets).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubeClient } from '@modelplane/runtime/client';
import { startSimRegistryServer } from '@modelplane/sim/registry/server';
import { rbacObjects } from '../../src/controllers/rbac.ts';
import type { ControllerSet } from '../../src/controllers/registry.ts';

export const DEPLOY_NAMESPACE = 'modelplane-system';

export interface OperatorProcess {
  /** the ServiceAccount user name the audit log records */
  user: string;
  child: ChildProcess;
  /** stdout+stderr so far (JSON log lines) */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ProcessOptions {
  /** `run` (default) or `provider` */
  command?: 'run' | 'provider';
  extraArgs?: string[];
  env?: Record<string, string>;
  /** how long to wait for the process to say it started */
  startTimeoutMs?: number;
  /** the namespace of its ServiceAccount, Roles and Lease (its POD_NAMESPACE; default DEPLOY_NAMESPACE) */
  namespace?: string;
}

/** where a process's ServiceAccount kubeconfig comes from: a DevTestCluster (either backend), possibly routed through faults */
export interface ServiceAccountCredentials {
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
}

/** `credentials` whose kubeconfigs go through `route` (the test cluster's fault injection, docs/real-kubernetes.md) */
export function routedCredentials(
  credentials: ServiceAccountCredentials,
  route: (kubeconfigYaml: string) => string,
): ServiceAccountCredentials {
  return { serviceAccountKubeconfig: async (ns, name) => route(await credentials.serviceAccountKubeconfig(ns, name)) };
}

/**
 * What a process runs: the image's bundle when the test runner built one for the run (scripts/operator-bundle.mjs),
 * as the image runs it and without loading the sources through tsx; else the CLI from the sources.
 */
export function operatorEntry(): string {
  return process.env.MODELPLANE_TEST_OPERATOR_BUNDLE || resolve('bin/modelplane.js');
}

/** creates the set's RBAC with `admin`, then starts the process with a token of its ServiceAccount */
export async function startOperatorProcess(
  credentials: ServiceAccountCredentials,
  admin: KubeClient,
  set: ControllerSet,
  opts: ProcessOptions = {},
): Promise<OperatorProcess> {
  const namespace = opts.namespace ?? DEPLOY_NAMESPACE;
  const c = admin.withFieldManager('test-rbac');
  await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const o of rbacObjects(set, namespace)) await c.apply(o as never);
  const sa = `modelplane-${set.name}`;
  const dir = mkdtempSync(join(tmpdir(), `modelplane-${set.name}-`));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, await credentials.serviceAccountKubeconfig(namespace, sa));
  const command = opts.command ?? 'run';
  // the aim and llamastack sets read image labels from a registry: like `modelplane dev`'s operator, the process gets the
  // simulated one (as a mirror of docker.io) unless the test names a mirror itself
  const extraArgs = [...(opts.extraArgs ?? [])];
  const registry =
    command === 'run' && ['aim', 'llamastack'].includes(set.name) && !extraArgs.includes('--registry-mirror')
      ? await startSimRegistryServer()
      : undefined;
  if (registry) extraArgs.push('--registry-mirror', `docker.io=${registry.url}`);
  const target = command === 'run' ? ['--controllers', set.name] : [set.name.replace(/^provider-/, '')];
  const args = [
    operatorEntry(),
    command,
    ...target,
    '--kubeconfig',
    kubeconfig,
    '--http-port',
    '0',
    '--http-host',
    '127.0.0.1',
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, POD_NAMESPACE: namespace, MODELPLANE_LOG_LEVEL: 'info', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // a wait, not a measure: on a loaded shared machine several processes loading the TypeScript sources
  // through tsx at once took over a minute before their first log line (the bundle starts faster)
  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
  while (!/"msg":"operator started"/.test(out)) {
    if (child.exitCode !== null) {
      await registry?.close();
      throw new Error(`modelplane ${command} ${set.name} exited ${child.exitCode} before starting:\n${out}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await registry?.close();
      throw new Error(`modelplane ${command} ${set.name} did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    user: `system:serviceaccount:${namespace}:${sa}`,
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      await registry?.close();
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

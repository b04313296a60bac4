// Runs an installed chart's Deployments the way the kubelet would, on either backend: each container's args
// and env (POD_NAMESPACE from the downward API) as a process of the image's entry (test/deploy/image-entry.ts:
// the bundle the Dockerfile builds, its ENTRYPOINT and ENV), authenticated with a token of the
// pod's ServiceAccount, so only the chart's RBAC authorises it. Before that, a SelfSubjectRulesReview per
// ServiceAccount shows the API server's authoriser grants exactly what `modelplane rbac` gives the
// Deployment's sets; afterwards the audit log shows which of the chart's users were refused anything.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '@modelplane/apiserver';
import { providerLeaseName } from '../../src/cli/provider.ts';
import { WEBHOOK_CERT_SECRET, WEBHOOK_CONFIGURATIONS } from '../../src/controllers/webhooks.ts';
import { waitFor } from '../helpers/wait.ts';
import { effectiveGrants, grants, type Manifest, ofKind, parseModelplaneArgs, unionGrants } from './chart.ts';
import { buildImageEntry, type ImageEntry } from './image-entry.ts';

const BASELINE_SA = 'test-baseline';

/** what these helpers need of a cluster: a TestCluster or a DevTestCluster, on either backend */
export interface ChartCluster {
  k(args: string[], input?: string): Promise<string>;
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  auditEntries(): AuditEntry[];
}

/** what the API server's authoriser lets `namespace/serviceAccount` do in `namespace` */
async function reviewGrants(cluster: ChartCluster, namespace: string, serviceAccount: string): Promise<string[]> {
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } };
  // --validate=false: kubectl checks a create-only kind (no PATCH operation in OpenAPI) on the client, which
  // lists CRDs — as the impersonated ServiceAccount, which rightly may not. A review is never stored, so
  // there is nothing to validate; `kubectl auth can-i --list --as=…` sends the same review without it.
  const out = await cluster.k(
    [
      'create',
      '--validate=false',
      '-o',
      'json',
      `--as=system:serviceaccount:${namespace}:${serviceAccount}`,
      '-f',
      '-',
    ],
    JSON.stringify(review),
  );
  const status = JSON.parse(out).status;
  assert.equal(status.incomplete, false, `rules review of ${serviceAccount} is incomplete`);
  return grants(status.resourceRules);
}

/** the authoriser grants each Deployment's ServiceAccount exactly what `modelplane rbac` (`printed`) gives its sets */
export async function assertAuthorisedGrants(
  cluster: ChartCluster,
  namespace: string,
  objects: Manifest[],
  printed: Manifest[],
): Promise<void> {
  await cluster.k(['create', 'serviceaccount', BASELINE_SA, '-n', namespace]);
  const baseline = new Set(await reviewGrants(cluster, namespace, BASELINE_SA));
  for (const d of ofKind(objects, 'Deployment')) {
    const sets = parseModelplaneArgs(d.spec.template.spec.containers[0].args).sets;
    const want = unionGrants(sets.map((s) => effectiveGrants(printed, namespace, `modelplane-${s}`)));
    const got = (await reviewGrants(cluster, namespace, d.spec.template.spec.serviceAccountName)).filter(
      (g) => !baseline.has(g),
    );
    assert.deepEqual(
      got,
      [...new Set([...want.cluster, ...want.namespace])].sort(),
      `${d.metadata.name}: the authoriser's rules for its ServiceAccount`,
    );
  }
}

export interface RunningContainer {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

export interface ChartProcesses {
  running: RunningContainer[];
  /** the ServiceAccount users the audit log records for the chart's Deployments */
  users: Set<string>;
  stop(): Promise<void>;
}

/** how the webhook server listens: any free port on 127.0.0.1 unless the backend needs more (see DevTestCluster) */
const LOCAL_WEBHOOK = ['--webhook-port=0', '--webhook-host=127.0.0.1'];

async function startContainer(
  cluster: ChartCluster,
  namespace: string,
  d: Manifest,
  dir: string,
  webhookListen: string[],
  entry: ImageEntry,
): Promise<RunningContainer> {
  const c = d.spec.template.spec.containers[0];
  const sa = d.spec.template.spec.serviceAccountName as string;
  const kubeconfig = join(dir, `${sa}.kubeconfig`);
  writeFileSync(kubeconfig, await cluster.serviceAccountKubeconfig(namespace, sa));
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = namespace;
    else if (e.valueFrom)
      throw new Error(
        `Deployment ${d.metadata.name}: env ${e.name} comes from ${JSON.stringify(e.valueFrom)}, which this test cannot provide`,
      );
    else env[e.name] = e.value;
  }
  // free ports instead of the chart's fixed ones: every process here shares one host
  const serves = c.args.some((a: string) => a.startsWith('--webhook-port'));
  const ports = ['--http-port=0', '--http-host=127.0.0.1', ...(serves ? webhookListen : [])];
  // the image's ENTRYPOINT (or the container's command) with the chart's args, and the image's ENV under the container's
  const cmd = entry.command({
    ...(c.command ? { command: c.command } : {}),
    args: [...c.args, '--kubeconfig', kubeconfig, ...ports],
  });
  const child = spawn(cmd.file, cmd.args, {
    cwd: cmd.cwd,
    env: { ...process.env, ...entry.image.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  return { name: d.metadata.name, child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
}

/** starts every Deployment of `objects` as a process and waits until each says it started */
export async function startChartProcesses(
  cluster: ChartCluster,
  namespace: string,
  objects: Manifest[],
  webhookListen: string[] = LOCAL_WEBHOOK,
): Promise<ChartProcesses> {
  const deployments = ofKind(objects, 'Deployment');
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-helm-'));
  const entry = await buildImageEntry();
  const running: RunningContainer[] = [];
  const stop = async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(running.map((p) => p.exited));
    rmSync(dir, { recursive: true, force: true });
    entry.remove();
  };
  try {
    for (const d of deployments) running.push(await startContainer(cluster, namespace, d, dir, webhookListen, entry));
    for (const p of running) {
      const state = await waitFor(
        `${p.name} started`,
        () => (p.child.exitCode !== null ? 'exited' : /"msg":"operator started"/.test(p.output()) && 'started'),
        // a process loads the operator's sources first: slow on a loaded machine
        { timeoutMs: 120_000, detail: p.output },
      );
      if (state === 'exited') throw new Error(`${p.name} exited ${p.child.exitCode} before starting:\n${p.output()}`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const users = new Set(
    deployments.map((d) => `system:serviceaccount:${namespace}:${d.spec.template.spec.serviceAccountName}`),
  );
  return { running, users, stop };
}

/** the webhook server made its Secret and pointed its configurations at the chart's Service; every leader holds its Lease */
export async function assertChartWiring(cluster: ChartCluster, namespace: string, objects: Manifest[]): Promise<void> {
  const deployments = ofKind(objects, 'Deployment');
  if (deployments.some((d) => d.metadata.name === 'modelplane-webhooks')) {
    await cluster.k(['get', 'secret', WEBHOOK_CERT_SECRET, '-n', namespace]);
    for (const [kind, name] of [
      ['mutatingwebhookconfiguration', WEBHOOK_CONFIGURATIONS.mutating],
      ['validatingwebhookconfiguration', WEBHOOK_CONFIGURATIONS.validating],
    ] as const) {
      const services = await cluster.k([
        'get',
        kind,
        name,
        '-o',
        'jsonpath={.webhooks[*].clientConfig.service.namespace}/{.webhooks[*].clientConfig.service.name}',
      ]);
      assert.match(
        services,
        new RegExp(`^(${namespace} ?)+/(modelplane-webhook-service ?)+$`),
        `${name} points at the chart's webhook Service`,
      );
    }
  }
  // leader election works in the release namespace: POD_NAMESPACE from the downward API, and the chart's Role
  for (const d of deployments) {
    const args = d.spec.template.spec.containers[0].args as string[];
    if (!args.includes('--leader-elect')) continue;
    const lease = args[0] === 'provider' ? providerLeaseName(args[1]!) : 'modelplane-leader';
    const holder = await waitFor(
      `Lease ${namespace}/${lease} held`,
      async () =>
        JSON.parse(await cluster.k(['get', 'lease', lease, '-n', namespace, '-o', 'json'])).spec?.holderIdentity,
    );
    assert.ok(holder, `${d.metadata.name}: Lease ${lease} has a holder`);
  }
}

/** every chart user made requests, and none was refused */
export function assertNeverRefused(cluster: ChartCluster, users: Set<string>): void {
  const mine = cluster.auditEntries().filter((e) => users.has(e.user));
  for (const user of users)
    assert.ok(
      mine.some((e) => e.user === user),
      `${user} made no request`,
    );
  assert.deepEqual(
    mine
      .filter((e) => e.code === 403)
      .map((e) => `${e.user} ${e.verb} ${e.group}/${e.resource} ${e.namespace}/${e.name}`),
    [],
    'requests the chart RBAC refused',
  );
}

// Runs an installed chart's Deployments the way the kubelet would, against the embedded cluster: each
// container's args and env (POD_NAMESPACE from the downward API) as a `modelplane` process, authenticated with
// a token of the pod's ServiceAccount, so only the chart's RBAC authorises it. Before that, a
// SelfSubjectRulesReview per ServiceAccount shows the API server's authoriser grants exactly what
// `modelplane rbac` gives the Deployment's sets.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WEBHOOK_CERT_SECRET, WEBHOOK_CONFIGURATIONS } from '../../src/controllers/webhooks.ts';
import { crdsYaml } from '../../src/cli/crds.ts';
import { providerLeaseName } from '../../src/cli/provider.ts';
import { externalCrds } from '../../src/sim/crds/index.ts';
import type { TestCluster } from '@modelplane/apiserver/testing';
import { waitFor } from '../helpers/wait.ts';
import { effectiveGrants, grants, type Manifest, ofKind, parseModelplaneArgs, unionGrants } from './chart.ts';

const BASELINE_SA = 'test-baseline';

/** what the API server's authoriser lets `namespace/serviceAccount` do in `namespace` */
async function reviewGrants(cluster: TestCluster, namespace: string, serviceAccount: string): Promise<string[]> {
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } };
  const out = await cluster.k(
    ['create', '-o', 'json', `--as=system:serviceaccount:${namespace}:${serviceAccount}`, '-f', '-'],
    JSON.stringify(review),
  );
  const status = JSON.parse(out).status;
  assert.equal(status.incomplete, false, `rules review of ${serviceAccount} is incomplete`);
  return grants(status.resourceRules);
}

interface Running {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

function startContainer(cluster: TestCluster, namespace: string, d: Manifest, dir: string): Running {
  const c = d.spec.template.spec.containers[0];
  const sa = d.spec.template.spec.serviceAccountName as string;
  const kubeconfig = join(dir, `${sa}.kubeconfig`);
  writeFileSync(kubeconfig, cluster.server.serviceAccountKubeconfig(namespace, sa));
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
  const ports = [
    '--http-port=0',
    '--http-host=127.0.0.1',
    ...(c.args.some((a: string) => a.startsWith('--webhook-port'))
      ? ['--webhook-port=0', '--webhook-host=127.0.0.1']
      : []),
  ];
  const child = spawn(
    process.execPath,
    [resolve('bin/modelplane.js'), ...c.args, '--kubeconfig', kubeconfig, ...ports],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  return { name: d.metadata.name, child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
}

export async function runDeploymentsAsProcesses(
  cluster: TestCluster,
  namespace: string,
  objects: Manifest[],
  printed: Manifest[],
): Promise<void> {
  const deployments = ofKind(objects, 'Deployment');
  const users = new Set(
    deployments.map((d) => `system:serviceaccount:${namespace}:${d.spec.template.spec.serviceAccountName}`),
  );
  await cluster.k(['apply', '--server-side', '-f', '-'], crdsYaml(externalCrds()));
  await cluster.k(['create', 'serviceaccount', BASELINE_SA, '-n', namespace]);

  const baseline = new Set(await reviewGrants(cluster, namespace, BASELINE_SA));
  for (const d of deployments) {
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

  const dir = mkdtempSync(join(tmpdir(), 'modelplane-helm-'));
  const running = deployments.map((d) => startContainer(cluster, namespace, d, dir));
  try {
    for (const p of running) {
      const state = await waitFor(
        `${p.name} started`,
        () => (p.child.exitCode !== null ? 'exited' : /"msg":"operator started"/.test(p.output()) && 'started'),
        {
          timeoutMs: 45_000,
          detail: p.output,
        },
      );
      if (state === 'exited') throw new Error(`${p.name} exited ${p.child.exitCode} before starting:\n${p.output()}`);
    }
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
    const mine = cluster.server.auditEntries().filter((e) => users.has(e.user));
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
  } finally {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(running.map((p) => p.exited));
    rmSync(dir, { recursive: true, force: true });
  }
}

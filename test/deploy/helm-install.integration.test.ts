// The Helm chart installed with the real helm (`helm install`) on the dev test cluster of either backend
// (simulated nodes and external operators; on the real backend kube-apiserver, etcd and
// kube-controller-manager). Every Deployment of the release then runs as a `modelplane` process
// authenticated as its own ServiceAccount, so only the chart's RBAC authorises it: the authoriser grants
// exactly what `modelplane rbac` gives each Deployment's sets, the chart's webhooks refuse a bad
// ModelDeployment through the chart's Service, a sample AIMService and ModelDeployment reach Ready, nothing
// the processes asked for was refused, and `helm uninstall` removes the release but keeps the CRDs.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realOnly } from '@modelplane/apiserver/testing';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type SimRegistryServer, startSimRegistryServer } from '@modelplane/sim/registry/server';
import { parseAllDocuments, stringify } from 'yaml';
import { WEBHOOK_SERVICE } from '../../src/controllers/webhooks.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { CHART_PATH, HELM, type Manifest, ofKind, parseManifests, run } from './chart.ts';
import {
  assertAuthorisedGrants,
  assertChartWiring,
  assertNeverRefused,
  type ChartProcesses,
  startChartProcesses,
} from './processes.ts';

const RELEASE = 'modelplane';
const NS = 'ml-ops';
// four processes (the samples need the aim and kaito providers): each is a Node process loading the operator
const VALUES = 'providers.dynamo.enabled=false,providers.kuberay.enabled=false';
const SAMPLES = ['00-namespace', '30-aim-runtime-config', '31-aim-model', '32-aim-service', '40-modeldeployment-cpu'];

// Slow (a dev cluster, helm, four operator processes: 1–3 minutes on 2 shared cores), so `npm test` skips it
// and `npm run test:real` runs it; MODELPLANE_HELM_INSTALL=1 runs it on the embedded server too
// (`MODELPLANE_HELM_INSTALL=1 node scripts/run-tests.mjs test/deploy/helm-install.integration.test.ts`).
const WHEN = process.env.MODELPLANE_HELM_INSTALL === '1' ? {} : realOnly();

describe('Helm chart installed with helm install, the operator under its RBAC', { ...WHEN, timeout: 480_000 }, () => {
  let cluster: DevTestCluster;
  let helmHome: string;
  let release: Manifest[];
  let printedRbac: Manifest[];
  let procs: ChartProcesses | undefined;
  let registry: SimRegistryServer | undefined;

  /** the real helm against the cluster, with its own config/cache/data directories */
  const helm = async (args: string[]) => {
    const r = await run(HELM, [...args, '--kubeconfig', cluster.kubeconfig], {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    });
    if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  const ready = (kind: string, name: string) =>
    waitFor(
      `${kind} quickstart/${name} Ready`,
      async () => {
        const o = JSON.parse(await cluster.k(['get', kind, name, '-n', 'quickstart', '-o', 'json']));
        return o.status?.conditions?.some(
          (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
        )
          ? o
          : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 250,
        detail: async () =>
          `${(await cluster.kubectl(['get', kind, name, '-n', 'quickstart', '-o', 'yaml'])).stdout}\n${procs?.running.map((p) => `--- ${p.name}\n${p.output().slice(-2000)}`).join('\n')}`,
      },
    );

  before(async () => {
    helmHome = mkdtempSync(join(tmpdir(), 'modelplane-helm-home-'));
    cluster = await startDevTestCluster();
    const rbac = await run(process.execPath, ['bin/modelplane.js', 'rbac', '--namespace', NS]);
    assert.equal(rbac.code, 0, rbac.stderr);
    printedRbac = parseManifests(rbac.stdout);
    // the release namespace enforces Pod Security "restricted": the chart's pods must be admitted under it
    await cluster.k(['create', 'namespace', NS]);
    await cluster.k(['label', 'namespace', NS, 'pod-security.kubernetes.io/enforce=restricted']);
    // the AIM controllers read image labels from docker.io: the chart's registryMirrors points them at the
    // simulated registry, as a cluster without internet access would point them at its mirror
    registry = await startSimRegistryServer();
    const mirrors = `controller.registryMirrors=${JSON.stringify([`docker.io=${registry.url}`])}`;
    await helm(['install', RELEASE, CHART_PATH, '--namespace', NS, '--set', VALUES, '--set-json', mirrors]);
    release = parseManifests(await helm(['get', 'manifest', RELEASE, '--namespace', NS]));
  });
  after(async () => {
    await procs?.stop();
    await registry?.close();
    await cluster?.stop();
    if (helmHome) rmSync(helmHome, { recursive: true, force: true });
  });

  it('the release is deployed and every object of its manifest exists', async () => {
    assert.match(await helm(['status', RELEASE, '--namespace', NS]), /STATUS: deployed/);
    assert.ok(ofKind(release, 'Deployment').length >= 3, 'the release has the operator Deployments');
    const r = await cluster.kubectl(['get', '-f', '-', '-o', 'name'], release.map((o) => stringify(o)).join('---\n'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, release.length, r.stdout);
  });

  it("its Deployments' pods are admitted under Pod Security restricted and all become available", async () => {
    // rollout status waits for every replica to be available (the Available condition alone is True at 0 of 1)
    for (const d of ofKind(release, 'Deployment'))
      await cluster.k(['rollout', 'status', `deployment/${d.metadata.name}`, '-n', NS, '--timeout=90s']);
  });

  it("the authoriser grants each Deployment's ServiceAccount exactly what `modelplane rbac` gives its sets", async () => {
    await assertAuthorisedGrants(cluster, NS, release, printedRbac);
  });

  it('every Deployment runs as its ServiceAccount: webhook Secret and configurations, Leases held', async () => {
    procs = await startChartProcesses(cluster, NS, release, cluster.webhookListenArgs());
    const webhooks = procs.running.find((p) => p.name === 'modelplane-webhooks')!;
    const url = /"msg":"webhook server listening".*?"url":"(https:\/\/[^"]+)"/.exec(webhooks.output())?.[1];
    assert.ok(url, webhooks.output());
    await exposeChartWebhook(cluster, url);
    await assertChartWiring(cluster, NS, release);
  });

  it("the chart's validating webhook refuses an invalid ModelDeployment through the chart's Service", async () => {
    const bad = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'vllm-no-gpu', namespace: 'default' },
      spec: { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 0 } } },
    };
    // refused once the caBundle is injected and the webhook's provider cache synced (failurePolicy Ignore before)
    const refusal = await waitFor(
      'the webhook to refuse vllm without GPU',
      async () => {
        const r = await cluster.kubectl(['create', '--dry-run=server', '-f', '-'], stringify(bad));
        return r.code !== 0 && r.stderr;
      },
      { timeoutMs: 45_000, intervalMs: 250 },
    );
    assert.match(refusal, /vLLM engine requires GPU \(set resources\.gpu\.count > 0\)/);
  });

  it('a sample AIMService and ModelDeployment reach Ready', async () => {
    for (const f of SAMPLES)
      for (const d of parseAllDocuments(readFileSync(`examples/quickstart/${f}.yaml`, 'utf8')))
        await cluster.admin.apply(d.toJS() as KubeObject);
    const [svc, md] = await Promise.all([ready('aimservice', 'qwen-chat'), ready('modeldeployment', 'gemma-cpu')]);
    assert.equal(svc.status.routing?.path, '/quickstart/chatbot/qwen-chat');
    assert.equal(md.status.provider?.name, 'kaito');
    assert.equal(md.status.phase, 'Running');
  });

  it("no request of the chart's ServiceAccounts was refused", () => {
    assertNeverRefused(cluster, procs!.users);
  });

  it('helm uninstall removes the release and keeps the CRDs', async () => {
    await procs!.stop();
    procs = undefined;
    await helm(['uninstall', RELEASE, '--namespace', NS, '--wait']);
    for (const o of release) {
      const r = await cluster.kubectl(['get', o.kind, o.metadata.name, ...(o.metadata.namespace ? ['-n', NS] : [])]);
      assert.match(r.stderr, /NotFound/, `${o.kind} ${o.metadata.name} is gone`);
    }
    await cluster.k(['get', 'crd', 'modeldeployments.kubeairunway.ai', 'aimservices.aim.eai.amd.com']);
  });
});

/**
 * Makes the chart's webhook Service reach the webhook process. On the embedded backend the server is told the
 * Service's endpoint; on the real one nothing routes ClusterIPs, so the Service becomes an ExternalName
 * naming the process's own loopback address (docs/real-kubernetes.md, "Webhooks on the real control plane").
 */
async function exposeChartWebhook(cluster: DevTestCluster, url: string): Promise<void> {
  if (cluster.backend === 'embedded') return cluster.exposeWebhook(NS, WEBHOOK_SERVICE, url);
  const spec = { type: 'ExternalName', externalName: new URL(url).hostname };
  await cluster.k(['patch', 'service', WEBHOOK_SERVICE, '-n', NS, '--type', 'merge', '-p', JSON.stringify({ spec })]);
}

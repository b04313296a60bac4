// Pod logs on either backend: on the embedded API server the simulated kubelet's log store answers pods/log
// directly; on the real control plane kube-apiserver proxies it over HTTPS to the simulated kubelet endpoint
// of the pod's node (its InternalIP and daemonEndpoints port, docs/real-kubernetes.md). `kubectl logs` and
// the operator's readers (a Job's log, the failure diagnostics) must see the same output on both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { FAIL_ANNOTATION, LOGS_ANNOTATION } from '@modelplane/sim/workloads';
import { fetchPodDiagnostics, jobPodLog, type Pod } from '../../src/engine/index.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'pod-logs';
const Pods = kindRef<Pod>('v1', 'Pod');
const Jobs = kindRef<KubeObject & { status?: { succeeded?: number } }>('batch/v1', 'Job');
const CUSTOM = ['first line of the app', 'second line of the app', 'third line of the app'];

function pod(name: string, annotations: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, annotations },
    spec: {
      initContainers: [{ name: 'fetch', image: 'busybox', command: ['sh', '-c', 'echo fetched'] }],
      containers: [
        { name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep infinity'] },
        { name: 'sidecar', image: 'busybox', command: ['sh', '-c', 'sleep infinity'] },
      ],
    },
  };
}

describe('pod logs through the API server', { timeout: 120_000 }, () => {
  let cluster: DevTestCluster;
  const logs = (args: string[]) => cluster.kubectl(['logs', '-n', NS, ...args]);
  const running = (name: string) =>
    waitFor(`pod ${name} Running`, async () => {
      const p = await cluster.admin.get(Pods, name, NS);
      return p.status?.phase === 'Running' ? p : undefined;
    });

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: [NS] });
  });
  after(() => cluster?.stop());

  it('kubectl logs: a container, the last lines, the first bytes, an init container', async () => {
    await cluster.admin.create(pod('app', { [LOGS_ANNOTATION]: CUSTOM.join('\n') }));
    await running('app');
    const full = await waitFor('the custom lines in the app log', async () => {
      const r = await logs(['app', '-c', 'app']);
      return r.code === 0 && r.stdout.includes(CUSTOM[2]!) ? r.stdout : undefined;
    });
    assert.ok(full.endsWith(`${CUSTOM.join('\n')}\n`), full);
    assert.equal((await logs(['app', '-c', 'app', '--tail=2'])).stdout, `${CUSTOM.slice(1).join('\n')}\n`);
    const first = full.split('\n')[0]!;
    assert.equal((await logs(['app', '-c', 'app', '--limit-bytes=5'])).stdout, first.slice(0, 5));
    const init = await logs(['app', '-c', 'fetch']);
    assert.equal(init.code, 0, init.stderr);
    assert.ok(init.stdout.length > 0, 'the init container ran and printed something');
    assert.notEqual(init.stdout, full);
  });

  it('kubectl logs errors: an unknown container, no previous run', async () => {
    const unknown = await logs(['app', '-c', 'nope']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /container nope is not valid for pod app/);
    const previous = await logs(['app', '-c', 'app', '--previous']);
    assert.notEqual(previous.code, 0);
    assert.match(previous.stderr, /previous terminated container "app" in pod "app" not found/);
  });

  it('a crash-looping container: --previous shows the run that crashed, and the diagnostics read it', async () => {
    await cluster.admin.create(pod('crash', { [FAIL_ANNOTATION]: 'CrashLoopBackOff', [LOGS_ANNOTATION]: 'boom' }));
    const p = await waitFor('crash to be in CrashLoopBackOff', async () => {
      const p = await cluster.admin.get(Pods, 'crash', NS);
      const app = p.status?.containerStatuses?.find((c) => c.name === 'app');
      return app?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
    });
    const previous = await logs(['crash', '-c', 'app', '--previous']);
    assert.equal(previous.code, 0, previous.stderr);
    assert.match(previous.stdout, /boom/);
    const diag = await fetchPodDiagnostics(cluster.admin, [p]);
    assert.match(diag.logs?.crash ?? '', /boom/, JSON.stringify(diag));
  });

  it("a finished Job's pod log, as the AIM controllers read it", async () => {
    await cluster.admin.create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'report', namespace: NS },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { annotations: { [LOGS_ANNOTATION]: '{"result":"42"}' } },
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'report', image: 'busybox', command: ['sh', '-c', 'echo done'] }],
          },
        },
      },
    });
    const job = await waitFor('Job report to succeed', async () => {
      const j = await cluster.admin.get(Jobs, 'report', NS);
      return (j.status?.succeeded ?? 0) > 0 ? j : undefined;
    });
    const log = await jobPodLog(cluster.admin, job, 'report');
    assert.match(log ?? '', /\{"result":"42"\}\n$/);
  });
});

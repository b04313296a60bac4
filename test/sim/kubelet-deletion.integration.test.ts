// The simulated kubelet finishes a graceful pod deletion, on both backends: kube-apiserver only stamps
// deletionTimestamp on a running pod and waits for the node's kubelet to remove it (grace period 0), so
// without this a deleted pod stays Terminating forever and keeps its node's capacity. The embedded server
// removes pods at once; the test holds on both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Pods } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'kubelet-deletion';

describe('simulated kubelet: graceful pod deletion', { timeout: 120_000 }, () => {
  let cluster: DevTestCluster;

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: [NS] });
  });

  after(async () => {
    await cluster?.stop();
  });

  it('a running pod deleted with the default grace period is removed by its kubelet', async () => {
    const pod = await cluster.admin.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'short-lived', namespace: NS },
      spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] },
    } as KubeObject);
    await waitFor('the pod Running on a node', async () => {
      const p = (await cluster.admin.get(Pods, 'short-lived', NS)) as KubeObject & {
        spec: { nodeName?: string };
        status?: { phase?: string };
      };
      return p.spec.nodeName && p.status?.phase === 'Running';
    });
    // no gracePeriodSeconds: the pod's own 30 s, which a kubelet cuts short once its containers stopped
    await cluster.admin.delete(Pods, 'short-lived', NS);
    await waitFor(
      'the deleted pod gone (not left Terminating)',
      async () => (await cluster.admin.getOrUndefined(Pods, 'short-lived', NS)) === undefined,
      { timeoutMs: 20_000 },
    );
    assert.ok(pod.metadata.uid);
  });
});

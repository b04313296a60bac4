// The fetch side of pod inspection against the embedded API server: events and last log lines are read
// for unhealthy pods only, and the inspectors turn them into a categorised error.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '@modelplane/apiserver';
import { KubeClient, Pods } from '@modelplane/runtime/client';
import { fetchEventsFor, fetchPodDiagnostics, normalizeHealth, type Pod, podsHealth } from '../../src/engine/index.ts';

describe('fetchPodDiagnostics on the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  const logReads: string[] = [];

  before(async () => {
    const podLogs = (_ns: string, name: string, container: string | undefined) => {
      logReads.push(`${name}/${container}`);
      return name === 'downloader'
        ? 'fetching model\nshard 1/4 done\nOSError: [Errno 28] No space left on device\n'
        : 'serving\n';
    };
    server = await startApiServer({ port: 0, podLogs });
    client = await KubeClient.create(server.kubeconfigYaml(), { fieldManager: 'diag-test' });
    for (const name of ['downloader', 'server', 'waiting']) {
      await client.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: { nodeName: 'node-1', containers: [{ name: 'main', image: 'example/x:1' }] },
      });
    }
    const container = { name: 'main', image: 'example/x:1', imageID: '', restartCount: 0 };
    await client.patch(
      Pods,
      'downloader',
      'default',
      {
        status: {
          phase: 'Failed',
          containerStatuses: [{ ...container, ready: false, state: { terminated: { exitCode: 1 } } }],
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await client.patch(
      Pods,
      'server',
      'default',
      {
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [{ ...container, ready: true, state: { running: {} } }],
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'waiting.1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'waiting', namespace: 'default' },
      reason: 'FailedScheduling',
      message: '0/1 nodes are available: 1 Insufficient amd.com/gpu.',
      type: 'Warning',
    });
  });

  after(async () => {
    client?.close();
    await server?.close();
  });

  it('reads logs of failed containers and events of unhealthy pods, nothing for healthy ones', async () => {
    const pods = (await client.list(Pods, { namespace: 'default' })).items as Pod[];
    const diag = await fetchPodDiagnostics(client, pods);
    assert.deepEqual(logReads, ['downloader/main'], 'logs only where a container failed');
    assert.deepEqual(Object.keys(diag.logs ?? {}), ['downloader']);
    assert.deepEqual(
      (diag.events ?? []).map((e) => `${e.involvedObject?.name}/${e.reason}`),
      ['waiting/FailedScheduling'],
    );
    const health = normalizeHealth({ component: 'Pods', ...podsHealth(pods, diag) });
    assert.deepEqual(
      [health.state, health.reason, health.errors[0]?.category],
      ['Failed', 'StorageFull', 'ResourceExhaustion'],
    );
    assert.match(health.message, /pod downloader: OSError: \[Errno 28\] No space left on device/);

    const waiting = normalizeHealth({
      component: 'Pods',
      ...podsHealth(
        pods.filter((p) => p.metadata.name !== 'downloader'),
        diag,
      ),
    });
    assert.deepEqual([waiting.state, waiting.reason], ['Pending', 'FailedScheduling']);
  });

  it('fetchEventsFor reads the events about one object', async () => {
    const pod = await client.get(Pods, 'waiting', 'default');
    assert.deepEqual(
      (await fetchEventsFor(client, pod)).map((e) => e.reason),
      ['FailedScheduling'],
    );
  });
});

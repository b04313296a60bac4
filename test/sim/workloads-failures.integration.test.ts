// Every `sim.modelplane.io/fail` value on the embedded API server: the pod status, events and logs the
// simulated kubelet and scheduler produce, and what the engine's health inspectors make of them (read
// the way the engine reads them: events by field selector, logs through pods/log).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ContainerStatus, Pod } from '@modelplane/sim/workloads/kinds';
import { Pods } from '@modelplane/sim/workloads/kinds';
import { fetchPodDiagnostics, inspectPod } from '../../src/engine/index.ts';
import { type CoreEvent, pod, type SimCluster, startSimCluster, waitFor } from './workloads-fixture.ts';

interface Verdict {
  category?: string;
  reason: string;
  state?: string;
}

interface Case {
  name: string;
  annotations: Record<string, string>;
  spec?: Partial<Pod['spec']>;
  /** the pod has reached the state to check */
  settled: (p: Pod, c: ContainerStatus | undefined) => boolean;
  check: (p: Pod, c: ContainerStatus, events: CoreEvent[], log: string) => void;
  /** what the engine's pod inspector concludes */
  verdict: Verdict;
}

const HF_401 =
  '401 Client Error: Unauthorized for url: https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json';

const HF_404 =
  '404 Client Error: Not Found for url: https://huggingface.co/acme/no-such-model/resolve/main/config.json';

const cases: Case[] = [
  {
    name: 'ImagePullBackOff: ErrImagePull, then ImagePullBackOff with the not-found error',
    annotations: { 'sim.modelplane.io/fail': 'ImagePullBackOff' },
    spec: { containers: [{ name: 'main', image: 'registry.example.com/team/missing:v1' }] },
    settled: (_p, c) => c?.state?.waiting?.reason === 'ImagePullBackOff',
    check: (p, c, events, log) => {
      assert.equal(p.status?.phase, 'Pending');
      assert.equal(c.ready, false);
      assert.equal(c.restartCount, 0);
      assert.equal(c.image, 'registry.example.com/team/missing:v1');
      assert.equal(c.imageID, '');
      const ref = 'registry.example.com/team/missing:v1';
      const pullError = `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
      assert.equal(c.state?.waiting?.message, `Back-off pulling image "${ref}": ErrImagePull: ${pullError}`);
      const notes = events.map((e) => `${e.type} ${e.reason}: ${e.message}`);
      for (const want of [
        `Normal Pulling: Pulling image "${ref}"`,
        `Warning Failed: Failed to pull image "${ref}": ${pullError}`,
        'Warning Failed: Error: ErrImagePull',
        `Normal BackOff: Back-off pulling image "${ref}"`,
        'Warning Failed: Error: ImagePullBackOff',
      ]) {
        assert.ok(notes.includes(want), `event "${want}" in\n${notes.join('\n')}`);
      }
      assert.equal(log, '', 'a container that never started has no log');
    },
    verdict: { category: 'MissingUpstreamDependency', reason: 'ImageNotFound' },
  },
  {
    name: 'ErrImagePull-auth: the pull is refused for lack of credentials',
    annotations: { 'sim.modelplane.io/fail': 'ErrImagePull-auth' },
    spec: { containers: [{ name: 'main', image: 'private/model-server:2.0' }] },
    settled: (_p, c) => c?.state?.waiting?.reason === 'ImagePullBackOff',
    check: (p, c, events) => {
      assert.equal(p.status?.phase, 'Pending');
      const failed = events.find((e) => e.reason === 'Failed' && e.message.startsWith('Failed to pull image'));
      assert.match(
        failed?.message ?? '',
        /^Failed to pull image "private\/model-server:2\.0": .*pull access denied, repository does not exist or may require authorization: .*unauthorized: authentication required$/,
      );
      assert.match(c.state?.waiting?.message ?? '', /docker\.io\/private\/model-server:2\.0.*authentication required/);
    },
    verdict: { category: 'Auth', reason: 'ImagePullAuthFailure' },
  },
  {
    name: 'OOMKilled: exit 137, restarts, CrashLoopBackOff',
    annotations: { 'sim.modelplane.io/fail': 'OOMKilled' },
    spec: { containers: [{ name: 'main', image: 'vllm/vllm-openai:v0.8.5', args: ['--model', 'Qwen/Qwen2.5-7B'] }] },
    settled: (_p, c) => c?.state?.waiting?.reason === 'CrashLoopBackOff',
    check: (p, c, events, log) => {
      assert.equal(p.status?.phase, 'Running');
      assert.equal(p.status?.conditions?.find((k) => k.type === 'Ready')?.status, 'False');
      assert.equal(c.lastState?.terminated?.reason, 'OOMKilled');
      assert.equal(c.lastState?.terminated?.exitCode, 137);
      assert.ok(c.restartCount >= 1);
      assert.match(
        c.state?.waiting?.message ?? '',
        new RegExp(
          `^back-off \\d+s restarting failed container=main pod=${p.metadata.name}_${p.metadata.namespace}\\(${p.metadata.uid}\\)$`,
        ),
      );
      assert.ok(
        events.some(
          (e) =>
            e.type === 'Warning' &&
            e.reason === 'BackOff' &&
            e.message ===
              `Back-off restarting failed container main in pod ${p.metadata.name}_${p.metadata.namespace}(${p.metadata.uid})`,
        ),
      );
      assert.match(log, /Starting to load model Qwen\/Qwen2\.5-7B/);
      assert.doesNotMatch(log, /Application startup complete/);
    },
    verdict: { category: 'ResourceExhaustion', reason: 'PodOOMKilled' },
  },
  {
    name: 'CrashLoopBackOff with custom log lines: exit 1, the last lines are the annotation',
    annotations: {
      'sim.modelplane.io/fail': 'CrashLoopBackOff',
      'sim.modelplane.io/logs': `Downloading config.json\n${HF_401}`,
    },
    spec: { containers: [{ name: 'main', image: 'vllm/vllm-openai:v0.8.5' }] },
    settled: (_p, c) => c?.state?.waiting?.reason === 'CrashLoopBackOff',
    check: (_p, c, _events, log) => {
      assert.equal(c.lastState?.terminated?.reason, 'Error');
      assert.equal(c.lastState?.terminated?.exitCode, 1);
      assert.ok(log.endsWith(`Downloading config.json\n${HF_401}\n`), log);
    },
    verdict: { category: 'Auth', reason: 'AuthError' },
  },
  {
    name: 'CrashLoopBackOff without log lines: an unrecognised crash is reported, not blocking',
    annotations: { 'sim.modelplane.io/fail': 'CrashLoopBackOff' },
    settled: (_p, c) => c?.state?.waiting?.reason === 'CrashLoopBackOff',
    check: (_p, c, _events, log) => {
      assert.equal(c.lastState?.terminated?.exitCode, 1);
      assert.match(log, /Traceback \(most recent call last\):\n.*\n.*\nRuntimeError: /);
    },
    verdict: { state: 'Degraded', reason: 'CrashLoopBackOff' },
  },
  {
    name: 'DiskFull: ENOSPC in the log, the node reports disk pressure',
    annotations: { 'sim.modelplane.io/fail': 'DiskFull' },
    spec: {
      containers: [
        { name: 'main', image: 'vllm/vllm-openai:v0.8.5', terminationMessagePolicy: 'FallbackToLogsOnError' },
      ],
    },
    settled: (_p, c) => c?.state?.waiting?.reason === 'CrashLoopBackOff',
    check: (_p, c, _events, log) => {
      assert.match(log, /OSError: \[Errno 28\] No space left on device\n$/);
      assert.match(c.lastState?.terminated?.message ?? '', /No space left on device/);
    },
    verdict: { category: 'ResourceExhaustion', reason: 'StorageFull' },
  },
  {
    name: 'Unschedulable: Pending with FailedScheduling although a node fits',
    annotations: { 'sim.modelplane.io/fail': 'Unschedulable' },
    settled: (p) =>
      p.status?.conditions?.some((k) => k.type === 'PodScheduled' && k.reason === 'Unschedulable') ?? false,
    check: (p, _c, events) => {
      assert.equal(p.status?.phase, 'Pending');
      assert.equal(p.spec.nodeName, undefined);
      assert.ok(events.some((e) => e.reason === 'FailedScheduling' && e.type === 'Warning'));
    },
    verdict: { state: 'Pending', reason: 'FailedScheduling' },
  },
  {
    name: 'custom log lines on a healthy pod are appended after startup',
    annotations: { 'sim.modelplane.io/logs': 'hello from the test\nsecond line' },
    spec: { containers: [{ name: 'main', image: 'vllm/vllm-openai:v0.8.5' }] },
    settled: (_p, c) => c?.ready === true,
    check: (p, _c, _events, log) => {
      assert.equal(p.status?.phase, 'Running');
      assert.match(log, /INFO: {5}Application startup complete\.\nhello from the test\nsecond line\n$/);
    },
    verdict: { state: 'Ready', reason: 'PodsReady' },
  },
  {
    name: 'an unknown failure value is ignored',
    annotations: { 'sim.modelplane.io/fail': 'Gremlins' },
    settled: (_p, c) => c?.ready === true,
    check: (p) => assert.equal(p.status?.phase, 'Running'),
    verdict: { state: 'Ready', reason: 'PodsReady' },
  },
  {
    name: 'restartPolicy Never: a crashing pod fails for good',
    annotations: { 'sim.modelplane.io/fail': 'CrashLoopBackOff', 'sim.modelplane.io/logs': HF_404 },
    spec: { restartPolicy: 'Never' },
    settled: (p) => p.status?.phase === 'Failed',
    check: (p, c) => {
      assert.equal(c.state?.terminated?.reason, 'Error');
      assert.equal(c.restartCount, 0);
      assert.deepEqual(
        p.status?.conditions?.map((k) => `${k.type}=${k.status}${k.reason ? `/${k.reason}` : ''}`),
        [
          'PodReadyToStartContainers=False',
          'Initialized=True',
          'Ready=False/PodFailed',
          'ContainersReady=False/PodFailed',
          'PodScheduled=True',
        ],
      );
    },
    verdict: { category: 'MissingUpstreamDependency', reason: 'SourceNotFound' },
  },
  {
    name: 'fail-container: a failing init container keeps the pod initialising',
    annotations: { 'sim.modelplane.io/fail': 'DiskFull', 'sim.modelplane.io/fail-container': 'storage-initializer' },
    spec: {
      initContainers: [
        {
          name: 'storage-initializer',
          image: 'kserve/storage-initializer:v0.14.1',
          args: ['hf://meta-llama/Llama-3.1-8B', '/mnt/models'],
        },
      ],
    },
    settled: (p) => p.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff',
    check: (p, c, _events, log) => {
      assert.equal(p.status?.phase, 'Pending');
      assert.match(
        log,
        /Downloading hf:\/\/meta-llama\/Llama-3\.1-8B.*\n(.*\n)*OSError: \[Errno 28\] No space left on device\n$/,
      );
      assert.equal(c.state?.waiting?.reason, 'PodInitializing');
      const init = p.status?.initContainerStatuses?.[0];
      assert.equal(init?.lastState?.terminated?.exitCode, 1);
      const initialized = p.status?.conditions?.find((k) => k.type === 'Initialized');
      assert.equal(initialized?.status, 'False');
      assert.equal(initialized?.reason, 'ContainersNotInitialized');
      assert.equal(initialized?.message, 'containers with incomplete status: [storage-initializer]');
    },
    verdict: { category: 'ResourceExhaustion', reason: 'StorageFull' },
  },
];

describe('workload simulators: failure injection', () => {
  let c: SimCluster;
  before(async () => {
    // a long back-off keeps each failure state still while the test reads it
    c = await startSimCluster({ delays: { backoff: 3_000, backoffMax: 3_000 } });
    await c.node('node-1', { cpu: '16', memory: '64Gi', pods: '110' });
  });
  after(async () => c?.close());

  for (const [i, tc] of cases.entries()) {
    it(tc.name, async () => {
      const ns = await c.namespace(`fail-${i}`);
      await c.admin.create(pod('p', ns, tc.spec ?? {}, tc.annotations));
      const p = await waitFor(async () => {
        const x = await c.admin.get(Pods, 'p', ns);
        return tc.settled(x, x.status?.containerStatuses?.[0]) ? x : undefined;
      }, `pod ${ns}/p to settle`);
      const container = p.status?.containerStatuses?.[0] ?? {
        name: 'main',
        ready: false,
        restartCount: 0,
        image: '',
        imageID: '',
      };
      const events = await c.events(ns, 'Pod', 'p');
      const container0 = p.spec.initContainers?.[0]?.name ?? 'main';
      let log = '';
      if (p.spec.nodeName) {
        try {
          log = await c.podLog(ns, 'p', container0);
        } catch (err) {
          // the kubelet's answer for a container that never started: it has no output
          if (!/is waiting to start/.test((err as Error).message)) throw err;
        }
      }
      tc.check(p, container, events, log);

      const diag = await fetchPodDiagnostics(c.admin, [p as never]);
      const finding = inspectPod(p as never, diag);
      const verdict = tc.verdict;
      if (verdict.category) assert.equal(finding.error?.category, verdict.category, finding.message);
      else assert.equal(finding.error, undefined, finding.error?.message);
      assert.equal(finding.reason, verdict.reason, finding.message);
      if (verdict.state) assert.equal(finding.state, verdict.state);
    });
  }
});

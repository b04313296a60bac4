import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ContainerStatus,
  type CoreEvent,
  classifyImagePull,
  classifyLogTail,
  type HealthReport,
  type HTTPRoute,
  httpRouteHealth,
  type Job,
  jobHealth,
  normalizeHealth,
  type PersistentVolumeClaim,
  type Pod,
  type PodDiagnostics,
  podsHealth,
  pvcHealth,
} from '../../src/engine/index.ts';

/** the health as the engine sees it: state, reason, error category */
function verdict(r: HealthReport): [string, string, string] {
  const n = normalizeHealth({ component: 'X', ...r });
  return [n.state, n.reason, n.errors[0]?.category ?? '-'];
}

function pod(name: string, status: Pod['status'], extra: Partial<Pod> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, status, ...extra };
}
/** the fields the API server always sets on a container status */
const STATUS_BASE = { image: 'img', imageID: '', ready: false, restartCount: 0 };
const waiting = (reason: string, message?: string): ContainerStatus => ({
  ...STATUS_BASE,
  name: 'main',
  state: { waiting: { reason, ...(message ? { message } : {}) } },
});
const readyCond = [{ type: 'Ready', status: 'True' }];
const failedWithExit = (code: number, extra: Partial<ContainerStatus> = {}): Pod['status'] => ({
  phase: 'Failed',
  containerStatuses: [{ ...STATUS_BASE, name: 'main', state: { terminated: { exitCode: code } }, ...extra }],
});
const event = (pod: string, reason: string, message: string, at = '2025-01-01T00:00:00Z'): CoreEvent => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `${pod}.${reason}` },
  involvedObject: { kind: 'Pod', name: pod },
  reason,
  message,
  lastTimestamp: at,
});

describe('pods health', () => {
  const TABLE: Array<[string, Pod[], PodDiagnostics, [string, string, string]]> = [
    ['no pods', [], {}, ['Progressing', 'NoPods', '-']],
    [
      'all ready',
      [pod('a', { phase: 'Running', conditions: readyCond }), pod('b', { phase: 'Succeeded' })],
      {},
      ['Ready', 'PodsReady', '-'],
    ],
    [
      'running, not ready yet',
      [pod('a', { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] })],
      {},
      ['Starting', 'PodsStarting', '-'],
    ],
    [
      'image pull auth failure',
      [
        pod('a', {
          phase: 'Pending',
          containerStatuses: [waiting('ImagePullBackOff', 'Back-off pulling image "reg/x:1": 401 Unauthorized')],
        }),
      ],
      {},
      ['Failed', 'ImagePullAuthFailure', 'Auth'],
    ],
    [
      'missing image',
      [
        pod('a', {
          phase: 'Pending',
          containerStatuses: [
            waiting('ErrImagePull', 'failed to resolve reference "reg/x:nope": reg/x:nope: not found'),
          ],
        }),
      ],
      {},
      ['Degraded', 'ImageNotFound', 'MissingUpstreamDependency'],
    ],
    [
      'registry unreachable',
      [
        pod('a', {
          phase: 'Pending',
          containerStatuses: [waiting('ImagePullBackOff', 'dial tcp 10.0.0.1:443: i/o timeout')],
        }),
      ],
      {},
      ['Degraded', 'ImagePullBackOff', 'Infrastructure'],
    ],
    [
      'invalid image name',
      [pod('a', { phase: 'Pending', containerStatuses: [waiting('InvalidImageName')] })],
      {},
      ['Failed', 'InvalidImageName', 'InvalidSpec'],
    ],
    [
      'missing ConfigMap for env',
      [
        pod('a', {
          phase: 'Pending',
          containerStatuses: [waiting('CreateContainerConfigError', 'configmap "cfg" not found')],
        }),
      ],
      {},
      ['Degraded', 'ContainerConfigError', 'MissingUpstreamDependency'],
    ],
    [
      'OOMKilled',
      [pod('a', failedWithExit(137, { state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }))],
      {},
      ['Failed', 'PodOOMKilled', 'ResourceExhaustion'],
    ],
    [
      'crash loop after OOM',
      [
        pod('a', {
          phase: 'Running',
          containerStatuses: [
            {
              ...STATUS_BASE,
              name: 'main',
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
            },
          ],
        }),
      ],
      {},
      ['Failed', 'PodOOMKilled', 'ResourceExhaustion'],
    ],
    [
      // between two crashes the container runs, not ready yet: still the OOM, not "starting" (the state
      // would flap between Failed and Starting with every restart)
      'running again after an OOM kill, not ready',
      [
        pod('a', {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
          containerStatuses: [
            {
              ...STATUS_BASE,
              name: 'main',
              restartCount: 3,
              state: { running: {} },
              lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
            },
          ],
        }),
      ],
      {},
      ['Failed', 'PodOOMKilled', 'ResourceExhaustion'],
    ],
    [
      'evicted',
      [pod('a', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' })],
      {},
      ['Degraded', 'PodEvicted', 'Infrastructure'],
    ],
    [
      'deadline exceeded',
      [pod('a', { phase: 'Failed', reason: 'DeadlineExceeded' })],
      {},
      ['Failed', 'PodDeadlineExceeded', 'InvalidSpec'],
    ],
    [
      'HuggingFace token rejected (logs)',
      [pod('dl', failedWithExit(1))],
      {
        logs: {
          dl: 'Downloading...\nhuggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/x\n',
        },
      },
      ['Failed', 'AuthError', 'Auth'],
    ],
    [
      'S3 credentials rejected (logs)',
      [pod('dl', failedWithExit(1))],
      {
        logs: {
          dl: 'botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the GetObject operation',
        },
      },
      ['Failed', 'AuthError', 'Auth'],
    ],
    [
      'disk full (logs)',
      [pod('dl', failedWithExit(1))],
      { logs: { dl: 'writing shard 3/8\nOSError: [Errno 28] No space left on device\n' } },
      ['Failed', 'StorageFull', 'ResourceExhaustion'],
    ],
    [
      'quota (logs)',
      [pod('dl', failedWithExit(1))],
      { logs: { dl: 'cp: error writing /cache/model.bin: Disk quota exceeded' } },
      ['Failed', 'StorageFull', 'ResourceExhaustion'],
    ],
    [
      'model not found (logs)',
      [pod('dl', failedWithExit(1))],
      {
        logs: {
          dl: 'huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. Repository Not Found for url: https://huggingface.co/api/models/nobody/nothing',
        },
      },
      ['Degraded', 'SourceNotFound', 'MissingUpstreamDependency'],
    ],
    [
      'the latest recognised line wins',
      [pod('dl', failedWithExit(1))],
      { logs: { dl: '401 Client Error: Unauthorized (retrying with token)\nOSError: No space left on device' } },
      ['Failed', 'StorageFull', 'ResourceExhaustion'],
    ],
    [
      'unrecognised failure',
      [pod('dl', failedWithExit(3))],
      { logs: { dl: 'something odd happened' } },
      ['Failed', 'PodFailed', 'InvalidSpec'],
    ],
    [
      'unrecognised crash loop: Degraded, not blocking',
      [pod('a', { phase: 'Running', containerStatuses: [waiting('CrashLoopBackOff')] })],
      {},
      ['Degraded', 'CrashLoopBackOff', '-'],
    ],
    [
      'scheduling failure (event)',
      [pod('a', { phase: 'Pending' })],
      { events: [event('a', 'FailedScheduling', '0/3 nodes are available: 3 Insufficient amd.com/gpu.')] },
      ['Pending', 'FailedScheduling', '-'],
    ],
    [
      'mount failure (event)',
      [pod('a', { phase: 'Pending' })],
      { events: [event('a', 'FailedMount', 'MountVolume.SetUp failed for volume "cache"')] },
      ['Pending', 'FailedMount', '-'],
    ],
    [
      'unschedulable (condition only)',
      [
        pod('a', {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no nodes' }],
        }),
      ],
      {},
      ['Pending', 'FailedScheduling', '-'],
    ],
    [
      'pulling (event)',
      [pod('a', { phase: 'Pending' })],
      { events: [event('a', 'Pulling', 'Pulling image "x"')] },
      ['Progressing', 'Pulling', '-'],
    ],
    [
      'events of other pods do not count',
      [pod('a', { phase: 'Pending' })],
      { events: [event('b', 'FailedScheduling', 'x')] },
      ['Pending', 'PodsPending', '-'],
    ],
    [
      'terminating pods are ignored',
      [
        pod('a', { phase: 'Running', conditions: readyCond }),
        pod(
          'old',
          { phase: 'Failed', reason: 'Evicted' },
          { metadata: { name: 'old', deletionTimestamp: '2025-01-01T00:00:00Z' } },
        ),
      ],
      {},
      ['Ready', 'PodsReady', '-'],
    ],
    [
      'auth beats other problems across pods',
      [
        pod('a', { phase: 'Pending', containerStatuses: [waiting('ImagePullBackOff', 'i/o timeout')] }),
        pod('b', {
          phase: 'Pending',
          containerStatuses: [waiting('ErrImagePull', 'pull access denied, authorization failed')],
        }),
      ],
      {},
      ['Failed', 'ImagePullAuthFailure', 'Auth'],
    ],
  ];
  for (const [name, pods, diag, expected] of TABLE) {
    it(name, () => assert.deepEqual(verdict(podsHealth(pods, diag)), expected));
  }

  it('messages name the pod', () => {
    const r = podsHealth([pod('dl-x', failedWithExit(1))], { logs: { 'dl-x': 'No space left on device' } });
    assert.match(normalizeHealth({ component: 'P', ...r }).message, /pod dl-x: No space left on device/);
  });

  it('log and image-pull classifiers', () => {
    assert.equal(classifyLogTail('', 'p'), undefined);
    assert.equal(classifyLogTail('all good\n', 'p'), undefined);
    assert.equal(classifyImagePull('manifest unknown'), 'not-found');
    assert.equal(classifyImagePull('no basic auth credentials'), 'auth');
    assert.equal(classifyImagePull('connection reset by peer'), 'other');
  });
});

describe('jobs, PVCs, HTTPRoutes', () => {
  const job = (status: Job['status'], spec: Partial<NonNullable<Job['spec']>> = {}): Job => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    spec: { template: {}, ...spec },
    status,
  });
  const JOBS: Array<[string, Job, [string, string, string]]> = [
    [
      'complete',
      job({ succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }),
      ['Ready', 'JobComplete', '-'],
    ],
    [
      'backoff limit',
      job({ failed: 3, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] }),
      ['Failed', 'JobBackoffLimitExceeded', 'InvalidSpec'],
    ],
    [
      'deadline',
      job({ conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }] }),
      ['Failed', 'JobDeadlineExceeded', 'InvalidSpec'],
    ],
    [
      'evicted',
      job({ conditions: [{ type: 'Failed', status: 'True', reason: 'PodEvicted' }] }),
      ['Degraded', 'JobEvicted', 'Infrastructure'],
    ],
    [
      'other failure',
      job({ conditions: [{ type: 'Failed', status: 'True', reason: 'PodFailurePolicy' }] }),
      ['Failed', 'JobFailed', 'InvalidSpec'],
    ],
    ['suspended', job({}, { suspend: true }), ['Pending', 'JobSuspended', '-']],
    ['running', job({ active: 1 }), ['Progressing', 'JobRunning', '-']],
  ];
  for (const [name, j, expected] of JOBS) it(`job: ${name}`, () => assert.deepEqual(verdict(jobHealth(j)), expected));

  const pvc = (phase?: 'Pending' | 'Bound' | 'Lost'): PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c' },
    status: phase ? { phase } : {},
  });
  const pvcEvent = (message: string): CoreEvent => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e' },
    involvedObject: { kind: 'PersistentVolumeClaim', name: 'c' },
    reason: 'ProvisioningFailed',
    message,
  });
  const PVCS: Array<[string, PersistentVolumeClaim, CoreEvent[], [string, string, string]]> = [
    ['bound', pvc('Bound'), [], ['Ready', 'PvcBound', '-']],
    ['lost', pvc('Lost'), [], ['Degraded', 'PvcLost', 'Infrastructure']],
    [
      'provisioning failed',
      pvc('Pending'),
      [pvcEvent('failed to provision volume: rpc error: timeout')],
      ['Degraded', 'ProvisioningFailed', 'Infrastructure'],
    ],
    [
      'out of space',
      pvc('Pending'),
      [pvcEvent('failed to provision volume: insufficient storage space in pool')],
      ['Failed', 'StorageFull', 'ResourceExhaustion'],
    ],
    ['pending', pvc('Pending'), [], ['Progressing', 'PvcPending', '-']],
  ];
  for (const [name, p, events, expected] of PVCS)
    it(`pvc: ${name}`, () => assert.deepEqual(verdict(pvcHealth(p, events)), expected));

  const route = (parents: NonNullable<HTTPRoute['status']>['parents'], generation = 1): HTTPRoute => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', generation },
    status: { parents: parents ?? [] },
  });
  const parent = (
    conditions: Array<{ type: string; status: string; reason?: string; observedGeneration?: number }>,
  ) => ({ parentRef: { name: 'gw', namespace: 'infra' }, controllerName: 'x', conditions });
  const ROUTES: Array<[string, HTTPRoute, [string, string, string]]> = [
    [
      'accepted',
      route([
        parent([
          { type: 'Accepted', status: 'True' },
          { type: 'ResolvedRefs', status: 'True' },
        ]),
      ]),
      ['Ready', 'HTTPRouteAccepted', '-'],
    ],
    [
      'rejected',
      route([parent([{ type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners' }])]),
      ['Failed', 'NotAllowedByListeners', 'InvalidSpec'],
    ],
    [
      'backend missing',
      route([
        parent([
          { type: 'Accepted', status: 'True' },
          { type: 'ResolvedRefs', status: 'False', reason: 'BackendNotFound' },
        ]),
      ]),
      ['Progressing', 'BackendNotFound', 'MissingDownstreamDependency'],
    ],
    ['no parent status yet', route([]), ['Progressing', 'HTTPRoutePending', '-']],
    [
      'verdict for an older generation',
      route([parent([{ type: 'Accepted', status: 'True', observedGeneration: 1 }])], 2),
      ['Progressing', 'HTTPRoutePending', '-'],
    ],
    [
      'one of two gateways accepts',
      route([
        parent([{ type: 'Accepted', status: 'False', reason: 'NoMatchingParent' }]),
        parent([{ type: 'Accepted', status: 'True' }]),
      ]),
      ['Ready', 'HTTPRouteAccepted', '-'],
    ],
  ];
  for (const [name, r, expected] of ROUTES)
    it(`httproute: ${name}`, () => assert.deepEqual(verdict(httpRouteHealth(r)), expected));
});

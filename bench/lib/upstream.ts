// The upstream stand-in: in place of KServe, the Gateway API implementation, KAITO, Dynamo and KubeRay,
// one controller per upstream kind that, the moment an object appears (or its generation moves), writes the
// status the real operator writes once everything is up: exactly one status apply per object generation.
//
// Why not `modelplane dev`'s simulators: they build what the real operators build (Deployments,
// ReplicaSets, Pods, Services, scheduling, kubelet status, stage delays of seconds), some fifteen writes
// per upstream object plus the delays. Both runs of the benchmark would mostly measure the simulators, and
// the ratio would tell little about our controllers. The stand-in keeps the upstream's part of the path
// (a watch, a reaction, one status write) and nothing more, and the baseline performs the same write.

import type { KubeClient } from '@modelplane/runtime/client';
import { ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';

export const STAND_IN = 'bench-upstream';
const CONTROLLER_NAME = 'bench.modelplane.io/upstream-stand-in';

type Json = Record<string, any>;
type Upstream = KubeObject & { spec?: Json; status?: Json };

export interface UpstreamKind {
  kind: KindRef<Upstream>;
  /** is the object's status already the ready status for its current generation? */
  isReady(obj: Upstream): boolean;
  readyStatus(obj: Upstream, now: string): Json;
  /** what the upstream does before it reports ready (the Job controller's pod, whose log a controller reads) */
  beforeReady?(obj: Upstream, client: KubeClient): Promise<void>;
}

const generation = (o: Upstream) => o.metadata.generation ?? 1;
const cond = (type: string, o: Upstream, now: string, observed = true) => ({
  type,
  status: 'True',
  reason: type,
  message: `${type} (upstream stand-in)`,
  lastTransitionTime: now,
  ...(observed ? { observedGeneration: generation(o) } : {}),
});

export const InferenceServiceKind: UpstreamKind = {
  kind: { apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService' } as KindRef<Upstream>,
  isReady: (o) =>
    o.status?.observedGeneration === generation(o) &&
    o.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True'),
  readyStatus: (o, now) => {
    const url = `http://${o.metadata.name}-predictor.${o.metadata.namespace}.svc.cluster.local`;
    return {
      observedGeneration: generation(o),
      deploymentMode: 'RawDeployment',
      // Knative conditions carry no observedGeneration
      conditions: ['IngressReady', 'PredictorReady', 'Ready'].map((t) => cond(t, o, now, false)),
      url: `http://${o.metadata.name}-${o.metadata.namespace}.example.com`,
      address: { url },
      modelStatus: {
        transitionStatus: 'UpToDate',
        states: { activeModelState: 'Loaded', targetModelState: 'Loaded' },
        copies: { totalCopies: 1 },
      },
    };
  },
};

export const HTTPRouteKind: UpstreamKind = {
  kind: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' } as KindRef<Upstream>,
  isReady: (o) =>
    o.status?.parents?.some(
      (p: Json) =>
        p.controllerName === CONTROLLER_NAME &&
        p.conditions?.some((c: Json) => c.type === 'Accepted' && c.observedGeneration === generation(o)),
    ),
  readyStatus: (o, now) => ({
    parents: (o.spec?.parentRefs ?? []).map((parentRef: Json) => ({
      parentRef,
      controllerName: CONTROLLER_NAME,
      conditions: [cond('Accepted', o, now), cond('ResolvedRefs', o, now)],
    })),
  }),
};

export const WorkspaceKind: UpstreamKind = {
  kind: { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace' } as KindRef<Upstream>,
  isReady: (o) =>
    o.status?.conditions?.some(
      (c: Json) => c.type === 'WorkspaceSucceeded' && c.status === 'True' && c.observedGeneration === generation(o),
    ),
  readyStatus: (o, now) => ({
    conditions: ['ResourceReady', 'InferenceReady', 'WorkspaceSucceeded'].map((t) => cond(t, o, now)),
    state: 'Ready',
  }),
};

export const DynamoGraphDeploymentKind: UpstreamKind = {
  kind: { apiVersion: 'nvidia.com/v1alpha1', kind: 'DynamoGraphDeployment' } as KindRef<Upstream>,
  isReady: (o) => o.status?.state === 'successful' && o.status?.observedGeneration === generation(o),
  readyStatus: (o, now) => ({
    state: 'successful',
    observedGeneration: generation(o),
    conditions: [cond('Ready', o, now)],
  }),
};

export const RayServiceKind: UpstreamKind = {
  kind: { apiVersion: 'ray.io/v1', kind: 'RayService' } as KindRef<Upstream>,
  isReady: (o) => o.status?.serviceStatus === 'Running' && o.status?.observedGeneration === generation(o),
  readyStatus: (o) => ({ serviceStatus: 'Running', observedGeneration: generation(o) }),
};

const PodKind = { apiVersion: 'v1', kind: 'Pod' } as KindRef<KubeObject>;

/** registers the stand-in's controllers on `mgr` (call before mgr.start()) */
export function registerUpstreamStandIn(mgr: Manager, kinds: readonly UpstreamKind[], concurrency = 4): void {
  for (const u of kinds) {
    mgr
      .controller(`${STAND_IN}-${u.kind.kind.toLowerCase()}`)
      .for(u.kind, { predicates: [ignoreOwnStatusWrites(STAND_IN)] })
      .withOptions({ fieldManager: STAND_IN, concurrency })
      .complete(async (req, ctx) => {
        const obj = await ctx.cache.get(u.kind, req.name, req.namespace);
        if (!obj || obj.metadata.deletionTimestamp || u.isReady(obj)) return;
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await u.beforeReady?.(obj, ctx.client);
        await ctx.client.applyStatus(
          {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            metadata: { name: req.name, namespace: req.namespace },
            status: u.readyStatus(obj, now),
          },
          { force: true },
        );
      });
  }
}

/**
 * A Job whose output a controller reads from its pod's log: the stand-in also creates the Job's one pod
 * (named after the Job, labelled job-name), whose log the bench server's log provider answers. One write
 * more than JobKind.
 */
export const JobWithPodKind: UpstreamKind = {
  kind: { apiVersion: 'batch/v1', kind: 'Job' } as KindRef<Upstream>,
  isReady: (o) => JobKind.isReady(o),
  readyStatus: (o, now) => JobKind.readyStatus(o, now),
  async beforeReady(job, client) {
    const name = `${job.metadata.name}-run`;
    const existing = await client.get(PodKind, name, job.metadata.namespace).catch(() => undefined);
    if (existing) return;
    const owner = { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name ?? '', uid: job.metadata.uid ?? '' };
    await client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: job.metadata.namespace,
        labels: { 'job-name': job.metadata.name ?? '' },
        ownerReferences: [{ ...owner, controller: true }],
      },
      // scheduled (a pod on no node has no log to read)
      spec: { ...(job.spec?.template?.spec ?? {}), restartPolicy: 'Never', nodeName: 'bench-node' },
    });
  },
};

/** in place of the Job controller and kubelet: the Job ran and completed */
export const JobKind: UpstreamKind = {
  kind: { apiVersion: 'batch/v1', kind: 'Job' } as KindRef<Upstream>,
  isReady: (o) => o.status?.conditions?.some((c: Json) => c.type === 'Complete' && c.status === 'True'),
  readyStatus: (_o, now) => ({
    startTime: now,
    completionTime: now,
    succeeded: 1,
    conditions: ['SuccessCriteriaMet', 'Complete'].map((type) => ({
      type,
      status: 'True',
      reason: 'CompletionsReached',
      message: 'Reached expected number of succeeded pods (upstream stand-in)',
      lastTransitionTime: now,
      lastProbeTime: now,
    })),
  }),
};

/** in place of the volume controller and a provisioner: the claim is bound */
export const PersistentVolumeClaimKind: UpstreamKind = {
  kind: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' } as KindRef<Upstream>,
  isReady: (o) => o.status?.phase === 'Bound',
  readyStatus: (o) => ({
    phase: 'Bound',
    accessModes: o.spec?.accessModes ?? ['ReadWriteOnce'],
    capacity: { storage: o.spec?.resources?.requests?.storage ?? '1Gi' },
  }),
};

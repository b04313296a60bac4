// How long the simulated operators take for the steps their real counterparts spend time on (load
// balancers, node provisioning, Ray Serve deploying the application). Defaults are short enough for the
// quickstart to converge well within 30 s and long enough for a user to watch the states go by; tests
// set them to zero.

export interface OperatorDelays {
  /** KServe: from the predictor Service existing to IngressReady (and the URL) */
  kserveIngressMs: number;
  /** Gateway API: from a Gateway being accepted to Programmed with an address */
  gatewayProgramMs: number;
  /** KAITO: matching (or "provisioning") the GPU nodes before ResourceReady */
  kaitoResourceMs: number;
  /** Dynamo: the operator's graph initialisation before it creates the component workloads */
  dynamoInitMs: number;
  /** KubeRay: from the RayCluster being ready to the Serve applications RUNNING */
  rayServeDeployMs: number;
  /** KEDA: from a ScaledObject to its HPA being active */
  kedaActivationMs: number;
}

export const DEFAULT_DELAYS: OperatorDelays = {
  kserveIngressMs: 1_000,
  gatewayProgramMs: 500,
  kaitoResourceMs: 2_000,
  dynamoInitMs: 1_000,
  rayServeDeployMs: 2_000,
  kedaActivationMs: 500,
};

export const ZERO_DELAYS: OperatorDelays = {
  kserveIngressMs: 0,
  gatewayProgramMs: 0,
  kaitoResourceMs: 0,
  dynamoInitMs: 0,
  rayServeDeployMs: 0,
  kedaActivationMs: 0,
};

/**
 * Remembers when an object first reached a stage, so a simulator can say "this step takes N ms" and
 * requeue for the remainder. Kept in memory: after a restart a step simply takes its time again.
 * Keyed by namespace, name and uid, so a deleted and recreated object starts over.
 */
export interface ClockSubject {
  metadata: { namespace?: string; name?: string; uid?: string };
}

function subjectKey(obj: ClockSubject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}/${obj.metadata.uid ?? ''}`;
}

export class StageClock {
  private readonly started = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** ms left before `stage` of `obj` is done (0 when done); the first call starts the clock */
  remaining(obj: ClockSubject, stage: string, durationMs: number): number {
    if (durationMs <= 0) return 0;
    const uid = subjectKey(obj);
    let stages = this.started.get(uid);
    if (!stages) {
      stages = new Map();
      this.started.set(uid, stages);
    }
    let at = stages.get(stage);
    if (at === undefined) {
      at = this.now();
      stages.set(stage, at);
    }
    return Math.max(0, at + durationMs - this.now());
  }

  /** drops every stage of the object(s) named namespace/name (called when it is gone) */
  forget(namespace: string, name: string): void {
    const prefix = `${namespace}/${name}/`;
    for (const key of this.started.keys()) if (key.startsWith(prefix)) this.started.delete(key);
  }
}

// Whether a provider's upstream operator is running (docs/kubeairunway.md, "Provider readiness and
// heartbeats"): a served CRD says the operator was installed once, not that anything reconciles the objects
// the provider creates. The operator is found as a Deployment carrying the provider's label selector (the
// upstream Helm chart's labels, or --upstream-operator-selector); it runs when one of them, not being
// deleted, has an available replica. Pure: the registration lists the Deployments and writes the verdict as
// the UpstreamReady condition.
import type { KubeObject } from '@modelplane/runtime/meta';

export const UPSTREAM_READY_CONDITION = 'UpstreamReady';

export interface OperatorVerdict {
  running: boolean;
  reason: 'OperatorRunning' | 'OperatorNotRunning' | 'OperatorNotFound';
  message: string;
}

type DeploymentLike = KubeObject & {
  spec?: { replicas?: number };
  status?: { availableReplicas?: number; replicas?: number };
};

export function operatorVerdict(deployments: readonly KubeObject[], selector: string, what: string): OperatorVerdict {
  const where = (d: KubeObject) => `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`;
  const live = (deployments as DeploymentLike[]).filter((d) => !d.metadata.deletionTimestamp);
  const running = live.filter((d) => (d.status?.availableReplicas ?? 0) > 0);
  if (running.length > 0)
    return {
      running: true,
      reason: 'OperatorRunning',
      message: `${what} is running: Deployment ${running.map(where).sort().join(', ')} has available replicas`,
    };
  if (live.length === 0)
    return {
      running: false,
      reason: 'OperatorNotFound',
      message: `${what} is not running: no Deployment labelled ${selector} in any namespace; install it, or start the provider with --upstream-operator-selector naming its Deployment's labels`,
    };
  const counts = live
    .map((d) => `${where(d)} ${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1} available`)
    .sort()
    .join(', ');
  return {
    running: false,
    reason: 'OperatorNotRunning',
    message: `${what} is not running: ${counts}; scale it up or check its pods (kubectl describe deployment)`,
  };
}

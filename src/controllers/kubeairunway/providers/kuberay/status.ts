// RayService status → unified phase. docs/kubeairunway.md's table reads `serviceStatus` (Running → Running, Pending →
// Pending, Failed → Failed with the message extracted from the Serve statuses). KubeRay releases that no
// longer write serviceStatus are read the way upstream does (docs/kubeairunway.md): the Ready condition (KubeRay's
// RayServiceReady, type "Ready"), then the Serve application statuses.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import type { MappedStatus } from '../../provider/definition.ts';
import { findCondition, nonNegativeInt, staleStatus } from '../common/index.ts';
import { SERVE_PORT } from './transform.ts';
import type { RayService, RayServiceStatusDetail } from './types.ts';

const FAILED_APP_STATES = new Set(['DEPLOY_FAILED', 'UNHEALTHY']);

/** the serve-svc KubeRay creates for the RayService's Serve endpoints */
export function serveServiceName(name: string): string {
  return `${name}-serve-svc`;
}

function details(rs: RayService): RayServiceStatusDetail[] {
  return [rs.status?.activeServiceStatus, rs.status?.pendingServiceStatus].filter(
    (d): d is RayServiceStatusDetail => d !== undefined,
  );
}

/** the first failed Serve application's message (or its failed deployment's), as `<app>[/<deployment>]: <message>` */
export function serveFailureMessage(rs: RayService): string | undefined {
  for (const detail of details(rs)) {
    for (const [app, s] of Object.entries(detail.applicationStatuses ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      if (!FAILED_APP_STATES.has(s.status ?? '')) continue;
      if (s.message) return `${app}: ${s.message}`;
      const failed = Object.entries(s.serveDeploymentStatuses ?? {}).find(
        ([, d]) => d.status === 'UNHEALTHY' && d.message,
      );
      return failed ? `${app}/${failed[0]}: ${failed[1].message}` : `${app}: ${s.status}`;
    }
  }
  return undefined;
}

function phaseOf(rs: RayService): MappedStatus {
  const status = rs.status ?? {};
  const stale = staleStatus('KubeRay', rs.metadata.generation, status.observedGeneration);
  if (stale) return stale;
  const ready = findCondition(status.conditions, 'Ready', 'RayServiceReady');
  switch (status.serviceStatus) {
    case 'Running':
      return { phase: 'Running' };
    case 'Pending':
      return { phase: 'Pending' };
    case 'Failed':
      return {
        phase: 'Failed',
        message: serveFailureMessage(rs) ?? ready?.message ?? 'KubeRay reports the RayService Failed',
      };
  }
  if (ready?.status === 'True') return { phase: 'Running' };
  const failure = serveFailureMessage(rs);
  if (failure) return { phase: 'Failed', message: failure };
  if (ready?.status === 'False')
    return ready.message ? { phase: 'Deploying', message: ready.message } : { phase: 'Deploying' };
  const apps = Object.values(status.activeServiceStatus?.applicationStatuses ?? {});
  if (apps.length > 0) return apps.every((a) => a.status === 'RUNNING') ? { phase: 'Running' } : { phase: 'Deploying' };
  return { phase: 'Pending' };
}

export function rayServiceStatus(rs: RayService, _md: ModelDeployment): MappedStatus {
  const mapped = phaseOf(rs);
  const desired = (rs.spec?.rayClusterConfig?.workerGroupSpecs ?? []).reduce(
    (n, g) => n + (nonNegativeInt(g.replicas) ?? 0),
    0,
  );
  const running = mapped.phase === 'Running';
  const cluster = rs.status?.activeServiceStatus?.rayClusterStatus;
  const ready = nonNegativeInt(cluster?.readyWorkerReplicas) ?? (running ? desired : 0);
  const available = nonNegativeInt(cluster?.availableWorkerReplicas) ?? ready;
  return {
    ...mapped,
    replicas: { desired, ready, available },
    endpoint: { service: serveServiceName(rs.metadata.name ?? ''), port: SERVE_PORT },
  };
}

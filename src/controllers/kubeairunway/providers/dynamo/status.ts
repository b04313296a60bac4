// DynamoGraphDeployment status → unified phase: docs/kubeairunway.md's table (successful → Running, deploying →
// Deploying, failed → Failed with status.message) plus upstream's initializing → Deploying and pending or
// unknown → Pending. Replicas count the engine workers (a Frontend is not a model replica).
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import type { MappedStatus } from '../../provider/definition.ts';
import { findCondition, nonNegativeInt, staleStatus } from '../common/index.ts';
import { FRONTEND_PORT } from './transform.ts';
import type { DynamoGraphDeployment } from './types.ts';

/** service names of the non-worker components, for a service whose spec names no componentType */
const NOT_WORKERS = /frontend|planner|^epp$|^main$/i;

function isWorker(dgd: DynamoGraphDeployment, service: string): boolean {
  const type = dgd.spec?.services?.[service]?.componentType;
  return type ? type === 'worker' : !NOT_WORKERS.test(service);
}

function phaseOf(dgd: DynamoGraphDeployment): MappedStatus {
  const status = dgd.status ?? {};
  const stale = staleStatus('Dynamo', dgd.metadata.generation, status.observedGeneration);
  if (stale) return stale;
  const message = status.message || undefined;
  const withMessage = (phase: MappedStatus['phase']): MappedStatus => (message ? { phase, message } : { phase });
  switch (status.state) {
    case 'successful':
      return { phase: 'Running' };
    case 'deploying':
    case 'initializing':
      return withMessage('Deploying');
    case 'failed':
      return {
        phase: 'Failed',
        message:
          message ?? findCondition(status.conditions, 'Ready')?.message ?? 'Dynamo reports the graph deployment failed',
      };
    case 'pending':
      return withMessage('Pending');
    case undefined:
    case '':
      return { phase: 'Pending' };
    default:
      return { phase: 'Pending', message: `unknown DynamoGraphDeployment state: ${status.state}` };
  }
}

function replicasOf(dgd: DynamoGraphDeployment, running: boolean): NonNullable<MappedStatus['replicas']> {
  const reported = Object.entries(dgd.status?.services ?? {}).filter(([name]) => isWorker(dgd, name));
  if (reported.length > 0) {
    let desired = 0;
    let ready = 0;
    let available = 0;
    for (const [, s] of reported) {
      desired += nonNegativeInt(s.replicas) ?? 0;
      ready += nonNegativeInt(s.readyReplicas) ?? nonNegativeInt(s.availableReplicas) ?? 0;
      available += nonNegativeInt(s.availableReplicas) ?? nonNegativeInt(s.readyReplicas) ?? 0;
    }
    return { desired, ready, available };
  }
  const desired = Object.entries(dgd.spec?.services ?? {})
    .filter(([name]) => isWorker(dgd, name))
    .reduce((n, [, c]) => n + (nonNegativeInt(c.replicas) ?? 1), 0);
  const ready = running ? desired : 0;
  return { desired, ready, available: ready };
}

export function graphDeploymentStatus(dgd: DynamoGraphDeployment, _md: ModelDeployment): MappedStatus {
  const mapped = phaseOf(dgd);
  const reported = dgd.status?.endpoint;
  const endpoint = reported?.service
    ? { service: reported.service, port: nonNegativeInt(reported.port) ?? FRONTEND_PORT }
    : { service: `${dgd.metadata.name ?? ''}-frontend`, port: FRONTEND_PORT };
  return { ...mapped, replicas: replicasOf(dgd, mapped.phase === 'Running'), endpoint };
}

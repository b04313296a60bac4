// AIMService status → unified phase: Running → Running, Starting → Deploying, Pending → Pending, Degraded
// and Failed → Failed with the Ready condition's message. The endpoint is the KServe predictor Service the
// AIMService's InferenceService gets (`<name>-predictor`, port 80).
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { PREDICTOR_SERVICE_PORT, predictorServiceName } from '../../../aim/service/names.ts';
import type { MappedStatus } from '../../provider/definition.ts';
import { findCondition, nonNegativeInt, staleStatus } from '../common/index.ts';
import type { AIMService } from './types.ts';

function phaseOf(svc: AIMService): MappedStatus {
  const status = svc.status ?? {};
  const stale = staleStatus('AIM', svc.metadata.generation, status.observedGeneration);
  if (stale) return stale;
  const ready = findCondition(status.conditions, 'Ready');
  const message = ready?.status !== 'True' ? ready?.message || undefined : undefined;
  switch (status.status) {
    case 'Running':
      return { phase: 'Running' };
    case 'Starting':
      return message ? { phase: 'Deploying', message } : { phase: 'Deploying' };
    case 'Degraded':
    case 'Failed': {
      const failed = message ?? status.conditions?.find((c) => c.status === 'False' && c.message)?.message;
      return { phase: 'Failed', message: failed ?? `the AIMService is ${status.status}` };
    }
    default:
      return message ? { phase: 'Pending', message } : { phase: 'Pending' };
  }
}

export function aimServiceStatus(svc: AIMService, _md: ModelDeployment): MappedStatus {
  const mapped = phaseOf(svc);
  const desired = nonNegativeInt(svc.spec?.replicas) ?? 1;
  const ready = mapped.phase === 'Running' ? desired : 0;
  return {
    ...mapped,
    replicas: { desired, ready, available: ready },
    endpoint: { service: predictorServiceName(svc.metadata.name ?? ''), port: PREDICTOR_SERVICE_PORT },
  };
}

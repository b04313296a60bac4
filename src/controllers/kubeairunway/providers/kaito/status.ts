// Workspace status → unified phase: docs/kubeairunway.md's table (WorkspaceSucceeded=True → Running, InferenceReady=False
// → Deploying with its message, an error condition → Failed with its message) and, in between, the
// `status.state` KAITO ≥ 0.10 writes (docs/kubeairunway.md).
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import type { KubeCondition } from '../../../../engine/index.ts';
import type { MappedStatus } from '../../provider/definition.ts';
import { findCondition, staleStatus } from '../common/index.ts';
import type { Workspace } from './types.ts';

/** the port of the Service KAITO creates, named like the Workspace */
export const KAITO_SERVICE_PORT = 80;

const STAGE_CONDITIONS = ['ResourceReady', 'InferenceReady', 'JobStarted'];

/** WorkspaceSucceeded=False, or a stage condition that KAITO marks failed (its reasons end in "Failed") */
function errorCondition(conditions: readonly KubeCondition[] | undefined): KubeCondition | undefined {
  const succeeded = findCondition(conditions, 'WorkspaceSucceeded');
  if (succeeded?.status === 'False') return succeeded;
  return conditions?.find(
    (c) => STAGE_CONDITIONS.includes(c.type) && c.status === 'False' && /failed$/i.test(c.reason ?? ''),
  );
}

const text = (c: KubeCondition | undefined): string | undefined => c?.message || c?.reason || undefined;

function phaseOf(ws: Workspace): MappedStatus {
  const conditions = ws.status?.conditions;
  const succeeded = findCondition(conditions, 'WorkspaceSucceeded');
  const stale = staleStatus('KAITO', ws.metadata.generation, succeeded?.observedGeneration);
  if (stale) return stale;
  if (succeeded?.status === 'True') return { phase: 'Running' };
  const error = errorCondition(conditions);
  if (error) return { phase: 'Failed', message: text(error) ?? `${error.type} is False` };
  const inference = findCondition(conditions, 'InferenceReady');
  const resource = findCondition(conditions, 'ResourceReady');
  const waiting = (c: KubeCondition | undefined) => (c?.status === 'False' ? text(c) : undefined);
  const state = ws.status?.state;
  switch (state) {
    case 'Ready':
    case 'Succeeded':
      return { phase: 'Running' };
    case 'Failed':
      return { phase: 'Failed', message: 'KAITO reports the workspace Failed' };
    case 'NotReady':
      return withMessage('Deploying', waiting(inference) ?? waiting(resource));
    case 'Running':
      return withMessage('Deploying', waiting(inference) ?? 'fine-tuning in progress');
    case 'Pending':
      return withMessage('Pending', waiting(resource));
    case undefined:
    case '':
      break;
    default:
      return { phase: 'Pending', message: `unknown workspace state: ${state}` };
  }
  if (inference?.status === 'False') return withMessage('Deploying', text(inference));
  if (resource?.status === 'True') return { phase: 'Deploying' };
  return withMessage('Pending', waiting(resource));
}

function withMessage(phase: MappedStatus['phase'], message: string | undefined): MappedStatus {
  return message ? { phase, message } : { phase };
}

export function workspaceStatus(ws: Workspace, _md: ModelDeployment): MappedStatus {
  const mapped = phaseOf(ws);
  const desired = Math.max(1, ws.resource?.count ?? 1);
  const ready = mapped.phase === 'Running' ? desired : 0;
  return {
    ...mapped,
    replicas: { desired, ready, available: ready },
    endpoint: { service: ws.metadata.name ?? '', port: KAITO_SERVICE_PORT },
  };
}

// Deployment status → unified phase, as llm-d's provider reads it: Available=True → Running;
// Progressing=False with ProgressDeadlineExceeded → Failed with its message; otherwise Deploying (Pending
// before the Deployment controller has said anything). The endpoint is the Service of the same name.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import type { MappedStatus } from '../../provider/definition.ts';
import { findCondition, nonNegativeInt, staleStatus } from '../common/index.ts';
import { VLLM_PORT } from './transform.ts';

interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }>;
}

export function vllmDeploymentStatus(d: KubeObject, _md: ModelDeployment): MappedStatus {
  const status = (d.status ?? {}) as DeploymentStatus;
  const desired = nonNegativeInt((d.spec as { replicas?: number } | undefined)?.replicas) ?? 1;
  const replicas = {
    desired,
    ready: nonNegativeInt(status.readyReplicas) ?? 0,
    available: nonNegativeInt(status.availableReplicas) ?? 0,
  };
  const endpoint = { service: d.metadata.name ?? '', port: VLLM_PORT };
  const stale = staleStatus('Deployment', d.metadata.generation, status.observedGeneration);
  if (stale) return { ...stale, replicas, endpoint };
  const available = findCondition(status.conditions as never, 'Available');
  const progressing = findCondition(status.conditions as never, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      phase: 'Failed',
      message: progressing.message || 'the vLLM Deployment exceeded its progress deadline',
      replicas,
      endpoint,
    };
  }
  if (available?.status === 'True' && replicas.available >= Math.min(desired, 1))
    return { phase: 'Running', replicas, endpoint };
  if (!status.conditions?.length) return { phase: 'Pending', replicas, endpoint };
  return { phase: 'Deploying', message: `${replicas.ready}/${desired} vLLM pods ready`, replicas, endpoint };
}

// A ModelDeployment or AIMService asks for saturation autoscaling with annotations (docs/autoscaling.md,
// "Asking for autoscaling"); this pure planner turns one, and the Deployments serving it, into the
// VariantAutoscaling the autoscaler sizes. The annotation names are the ones llm-d uses for discovery.

import type { KubeObject } from '@modelplane/runtime/meta';
import {
  ACCELERATOR_LABEL,
  DEFAULT_MAX_REPLICAS,
  DEFAULT_MIN_REPLICAS,
  DEFAULT_VARIANT_COST,
  LLMD_API_VERSION,
} from '../../../apis/llmd/index.ts';

export const MANAGED_ANNOTATION = 'llm-d.ai/managed';
export const MODEL_ID_ANNOTATION = 'llm-d.ai/model-id';
export const VARIANT_COST_ANNOTATION = 'llm-d.ai/variant-cost';
export const MIN_REPLICAS_ANNOTATION = 'llm-d.ai/min-replicas';
export const MAX_REPLICAS_ANNOTATION = 'llm-d.ai/max-replicas';
export const ACCELERATOR_ANNOTATION = 'llm-d.ai/accelerator';

export interface ServingDeployment extends KubeObject {
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        containers?: Array<{ resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> } }>;
      };
    };
  };
}

export interface Parent extends KubeObject {
  spec?: { model?: { id?: string; name?: string; ref?: string; image?: string } };
}

export type PlanOutcome = { va: KubeObject } | { waiting: string } | { invalid: string } | { off: true };

export const wantsAutoscaling = (p: Parent) => p.metadata.annotations?.[MANAGED_ANNOTATION] === 'true';

/** the pod-template label that ties a Deployment to its parent */
export function parentLabel(p: Parent): [string, string] {
  return p.kind === 'AIMService'
    ? ['aim.eai.amd.com/service', p.metadata.name ?? '']
    : ['kubeairunway.ai/model-deployment', p.metadata.name ?? ''];
}

/** the serving Deployment among the parent's: workers, not frontends or Ray heads; ties by name */
export function servingDeployment(p: Parent, deployments: readonly ServingDeployment[]): ServingDeployment | undefined {
  const [k, v] = parentLabel(p);
  const mine = deployments.filter((d) => d.spec?.template?.metadata?.labels?.[k] === v);
  const role = (d: ServingDeployment) => {
    const l = d.spec?.template?.metadata?.labels ?? {};
    return l['nvidia.com/dynamo-component-type'] === 'frontend' || l['ray.io/node-type'] === 'head' ? 1 : 0;
  };
  return [...mine].sort((a, b) => role(a) - role(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))[0];
}

function acceleratorOf(d: ServingDeployment): string {
  const res =
    d.spec?.template?.spec?.containers?.flatMap((c) =>
      Object.keys({ ...c.resources?.limits, ...c.resources?.requests }),
    ) ?? [];
  if (res.includes('nvidia.com/gpu')) return 'NVIDIA-GPU';
  if (res.includes('amd.com/gpu')) return 'AMD-GPU';
  return 'CPU';
}

function int(p: Parent, annotation: string, fallback: number, min: number): number | string {
  const text = p.metadata.annotations?.[annotation];
  if (text === undefined) return fallback;
  const n = Number(text);
  return Number.isInteger(n) && n >= min ? n : `annotation ${annotation} is "${text}"; it must be an integer >= ${min}`;
}

export function planVariantAutoscaling(p: Parent, deployments: readonly ServingDeployment[]): PlanOutcome {
  if (!wantsAutoscaling(p)) return { off: true };
  const ann = p.metadata.annotations ?? {};
  const where = `${p.kind} ${p.metadata.namespace}/${p.metadata.name}`;
  const modelID = ann[MODEL_ID_ANNOTATION] ?? p.spec?.model?.id ?? p.spec?.model?.name ?? p.spec?.model?.ref;
  if (!modelID)
    return {
      invalid: `${where}: no model ID for the VariantAutoscaling; set annotation ${MODEL_ID_ANNOTATION} to the served model name`,
    };
  const cost = ann[VARIANT_COST_ANNOTATION] ?? DEFAULT_VARIANT_COST;
  if (!/^\d+(\.\d+)?$/.test(cost))
    return {
      invalid: `${where}: annotation ${VARIANT_COST_ANNOTATION} is "${cost}"; it must be a decimal number such as "10.0"`,
    };
  const min = int(p, MIN_REPLICAS_ANNOTATION, DEFAULT_MIN_REPLICAS, 0);
  const max = int(p, MAX_REPLICAS_ANNOTATION, DEFAULT_MAX_REPLICAS, 1);
  if (typeof min === 'string') return { invalid: `${where}: ${min}` };
  if (typeof max === 'string') return { invalid: `${where}: ${max}` };
  if (max < min)
    return {
      invalid: `${where}: annotation ${MAX_REPLICAS_ANNOTATION} (${max}) is below ${MIN_REPLICAS_ANNOTATION} (${min})`,
    };
  const target = servingDeployment(p, deployments);
  if (!target)
    return { waiting: `${where}: no Deployment serving it yet (pod template label ${parentLabel(p).join('=')})` };
  return {
    va: {
      apiVersion: LLMD_API_VERSION,
      kind: 'VariantAutoscaling',
      metadata: {
        name: p.metadata.name,
        namespace: p.metadata.namespace,
        labels: { [ACCELERATOR_LABEL]: ann[ACCELERATOR_ANNOTATION] ?? acceleratorOf(target) },
      },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target.metadata.name },
        modelID,
        variantCost: cost,
        minReplicas: min,
        maxReplicas: max,
      },
    } as KubeObject,
  };
}

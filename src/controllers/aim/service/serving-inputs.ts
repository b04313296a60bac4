// What the upstream chain contributed to a service's InferenceService, recorded on the InferenceService
// itself (docs/aim.md, "A running service is never disturbed"). docs/controllers.md's downstream-gating rule:
// once the downstream object exists, upstream state no longer changes it. So the image, the model and
// template references and the template's parameters (env, GPU, node affinity) are written once, when the
// InferenceService is created from a Ready model, template and cache, and every later apply takes them
// from this record instead of from the model and template as they are now. A template going NotAvailable,
// deleted or recreated, a model deleted or updated, or a cache rebuilt therefore never rolls the
// predictor out; the service's own spec and its runtime config still reach it. The record lives exactly
// as long as the InferenceService: delete that and the next one is built from the chain as it is then.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { EnvVar } from '../../../common/env-merge/index.ts';
import type { ResolvedReference } from '../../../engine/index.ts';

export interface TemplateInput {
  name: string;
  metric?: string | undefined;
  precision?: string | undefined;
  profileId?: string | undefined;
  env?: readonly EnvVar[] | undefined;
  gpu?: { count: number; resourceName: string } | undefined;
  nodeAffinity?: Record<string, unknown> | undefined;
}

export const SERVING_INPUTS_ANNOTATION = 'aim.eai.amd.com/serving-inputs';

export interface ServingInputs {
  /** the image the predictor runs */
  image: string;
  /** the AIMModel or AIMClusterModel it was built from (custom and by-image services too) */
  model?: ResolvedReference;
  /** the template it was built from, and what the template put into the InferenceService */
  template?: ResolvedReference;
  templateInput?: TemplateInput;
}

/** the annotation's value: stable JSON (same inputs ⇒ same string, so a re-apply changes nothing) */
export function encodeServingInputs(inputs: ServingInputs): string {
  return JSON.stringify(sortKeys(inputs));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || typeof v === 'string';

function asRef(v: unknown): ResolvedReference | undefined | null {
  if (v === undefined) return undefined;
  if (!isObj(v) || typeof v.name !== 'string' || v.name === '') return null;
  for (const k of ['namespace', 'uid', 'kind', 'scope']) if (!optString(v[k])) return null;
  return v as ResolvedReference;
}

function asEnv(v: unknown): EnvVar[] | undefined | null {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return null;
  const ok = v.every(
    (e) =>
      isObj(e) && typeof e.name === 'string' && optString(e.value) && (e.valueFrom === undefined || isObj(e.valueFrom)),
  );
  return ok ? (v as EnvVar[]) : null;
}

function asTemplateInput(v: unknown): TemplateInput | undefined | null {
  if (v === undefined) return undefined;
  if (!isObj(v) || typeof v.name !== 'string') return null;
  for (const k of ['metric', 'precision', 'profileId']) if (!optString(v[k])) return null;
  const env = asEnv(v.env);
  if (env === null) return null;
  const gpu = v.gpu;
  if (
    gpu !== undefined &&
    !(
      isObj(gpu) &&
      typeof gpu.count === 'number' &&
      Number.isInteger(gpu.count) &&
      gpu.count > 0 &&
      typeof gpu.resourceName === 'string'
    )
  )
    return null;
  if (v.nodeAffinity !== undefined && !isObj(v.nodeAffinity)) return null;
  return v as unknown as TemplateInput;
}

/**
 * The inputs a live InferenceService was built with, or undefined when it carries none (built before the
 * record existed) or the record does not parse (edited by hand): the caller then treats it as unrecorded.
 */
export function servingInputsOf(isvc: KubeObject): ServingInputs | undefined {
  const raw = isvc.metadata.annotations?.[SERVING_INPUTS_ANNOTATION];
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObj(parsed) || typeof parsed.image !== 'string' || parsed.image === '') return undefined;
  const model = asRef(parsed.model);
  const template = asRef(parsed.template);
  const templateInput = asTemplateInput(parsed.templateInput);
  if (model === null || template === null || templateInput === null) return undefined;
  return {
    image: parsed.image,
    ...(model ? { model } : {}),
    ...(template ? { template } : {}),
    ...(templateInput ? { templateInput } : {}),
  };
}

/** "AIMServiceTemplate ns/name" for messages */
export function describeRef(ref: ResolvedReference, fallbackKind: string): string {
  const kind = typeof ref.kind === 'string' && ref.kind ? ref.kind : fallbackKind;
  return `${kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

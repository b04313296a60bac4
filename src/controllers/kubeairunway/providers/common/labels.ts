// The labels every provider puts on its upstream resource and its pods. The skeleton adds managed-by and the
// `kubeairunway.ai/` labels copied from the ModelDeployment; these say what the resource serves.
import { createHash } from 'node:crypto';
import {
  ENGINE_TYPE_LABEL,
  MODEL_DEPLOYMENT_LABEL,
  MODEL_ID_LABEL,
  MODEL_SOURCE_LABEL,
  type ModelDeployment,
} from '../../../../apis/kubeairunway/index.ts';
import { modelSourceOf } from '../../validation/index.ts';

const LABEL_VALUE_MAX = 63;
const HASH_LENGTH = 8;

/**
 * Any text as a valid label value: characters a label value cannot hold become `_`
 * (`meta-llama/Llama-3.1-8B` → `meta-llama_Llama-3.1-8B`), the ends are trimmed to alphanumerics, and a value
 * too long is cut and suffixed with a hash of the whole text, so two long model ids never share a value.
 */
export function sanitizeLabelValue(text: string): string {
  const value = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  if (value.length <= LABEL_VALUE_MAX) return value;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
  const head = value.slice(0, LABEL_VALUE_MAX - HASH_LENGTH - 1).replace(/[^A-Za-z0-9]+$/, '');
  return `${head}-${hash}`;
}

/** model-deployment, model-source, engine-type and model-id, for the upstream resource's metadata */
export function modelLabels(md: ModelDeployment): Record<string, string> {
  const spec = md.spec;
  const labels: Record<string, string> = {
    [MODEL_DEPLOYMENT_LABEL]: sanitizeLabelValue(md.metadata.name ?? ''),
    [MODEL_SOURCE_LABEL]: modelSourceOf(spec),
  };
  if (spec.engine?.type) labels[ENGINE_TYPE_LABEL] = spec.engine.type;
  if (spec.model?.id) labels[MODEL_ID_LABEL] = sanitizeLabelValue(spec.model.id);
  return labels;
}

/** pod labels: the user's spec.podTemplate labels plus the link to the deployment (which wins: it finds the pods) */
export function podLabels(md: ModelDeployment): Record<string, string> {
  return {
    ...(md.spec.podTemplate?.metadata?.labels ?? {}),
    [MODEL_DEPLOYMENT_LABEL]: sanitizeLabelValue(md.metadata.name ?? ''),
  };
}

/** the user's spec.podTemplate annotations, or undefined when there are none (so no empty map is written) */
export function podAnnotations(md: ModelDeployment): Record<string, string> | undefined {
  const annotations = md.spec.podTemplate?.metadata?.annotations;
  return annotations && Object.keys(annotations).length > 0 ? { ...annotations } : undefined;
}

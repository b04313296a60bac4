// The llmd.ai/v1alpha1 API: the VariantAutoscaling kind (zod schema → types and CRD) and the names the
// saturation autoscaler shares with its users (docs/autoscaling.md).
import type { CustomResourceDefinition } from '@modelplane/apimachinery/builtin';
import { variantAutoscalingCrd } from './variant-autoscaling.ts';

export {
  ACCELERATOR_LABEL,
  CONDITION_METRICS_AVAILABLE,
  CONDITION_OPTIMIZATION_READY,
  CONDITION_TARGET_RESOLVED,
  CONFIG_ENABLED_LABEL,
  CONTROLLER_INSTANCE_LABEL,
  DEFAULT_AUTOSCALER_NAMESPACE,
  DEFAULT_CONFIG_MAP_NAME,
  DEFAULT_MAX_REPLICAS,
  DEFAULT_MIN_REPLICAS,
  DEFAULT_SATURATION_CONFIG_MAP_NAME,
  DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME,
  DEFAULT_VARIANT_COST,
  EXCLUDE_ANNOTATION,
  LLMD_API_VERSION,
  LLMD_CATEGORIES,
  LLMD_GROUP,
  LLMD_VERSION,
  REASONS,
} from './common.ts';
export {
  type OptimizedAlloc,
  optimizedAllocSchema,
  scaleTargetRefSchema,
  type VariantAutoscalingSpec,
  type VariantAutoscalingSpecInput,
  type VariantAutoscalingStatus,
  variantAutoscalingCrd,
  variantAutoscalingSpecSchema,
  variantAutoscalingStatusSchema,
} from './variant-autoscaling.ts';

/** every CRD of the llmd.ai group */
export function llmdCrds(): CustomResourceDefinition[] {
  return [variantAutoscalingCrd()];
}

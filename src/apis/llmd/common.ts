// Names shared by the llmd.ai kinds, the saturation autoscaler and everything that creates
// VariantAutoscalings (docs/autoscaling.md). Group, labels, ConfigMap names and env vars are spelled exactly
// as llm-d's Workload Variant Autoscaler spells them, so its manifests work unchanged.

export const LLMD_GROUP = 'llmd.ai';
export const LLMD_VERSION = 'v1alpha1';
export const LLMD_API_VERSION = `${LLMD_GROUP}/${LLMD_VERSION}`;
export const LLMD_CATEGORIES = ['llmd', 'all'];

/** the accelerator a variant runs on (required in practice: without it no decision is written) */
export const ACCELERATOR_LABEL = 'inference.optimization/acceleratorName';
/** a namespace with this label set to "true" may hold namespace-local autoscaler ConfigMaps */
export const CONFIG_ENABLED_LABEL = 'wva.llmd.ai/config-enabled';
/** a namespace annotated with this set to "true" is ignored by the autoscaler */
export const EXCLUDE_ANNOTATION = 'wva.llmd.ai/exclude';
/** isolates several autoscaler installs: a VA with this label is handled only by the instance of that name */
export const CONTROLLER_INSTANCE_LABEL = 'wva.llmd.ai/controller-instance';

/** the main ConfigMap (GLOBAL_OPT_INTERVAL), its name overridable with CONFIG_MAP_NAME */
export const DEFAULT_CONFIG_MAP_NAME = 'workload-variant-autoscaler-variantautoscaling-config';
/** the saturation thresholds ConfigMap, its name overridable with SATURATION_CONFIG_MAP_NAME */
export const DEFAULT_SATURATION_CONFIG_MAP_NAME = 'saturation-scaling-config';
/** per-model scale-to-zero switches and retention windows, its name overridable with SCALE_TO_ZERO_CONFIG_MAP_NAME */
export const DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME = 'wva-model-scale-to-zero-config';
/** where the global ConfigMaps live unless POD_NAMESPACE says otherwise */
export const DEFAULT_AUTOSCALER_NAMESPACE = 'workload-variant-autoscaler-system';

export const DEFAULT_VARIANT_COST = '10.0';
export const DEFAULT_MIN_REPLICAS = 1;
export const DEFAULT_MAX_REPLICAS = 10;

/** the three conditions of a VariantAutoscaling and their reasons */
export const CONDITION_TARGET_RESOLVED = 'TargetResolved';
export const CONDITION_METRICS_AVAILABLE = 'MetricsAvailable';
export const CONDITION_OPTIMIZATION_READY = 'OptimizationReady';

export const REASONS = {
  targetFound: 'TargetFound',
  targetNotFound: 'TargetNotFound',
  /** a second VariantAutoscaling names a target another one claimed first */
  duplicateTarget: 'DuplicateTarget',
  metricsFound: 'MetricsFound',
  metricsMissing: 'MetricsMissing',
  metricsStale: 'MetricsStale',
  prometheusError: 'PrometheusError',
  optimizationSucceeded: 'OptimizationSucceeded',
  optimizationFailed: 'OptimizationFailed',
  metricsUnavailable: 'MetricsUnavailable',
  invalidConfiguration: 'InvalidConfiguration',
  skippedProcessing: 'SkippedProcessing',
  saturationOnlyMode: 'SaturationOnlyMode',
  saturationSafetyOverride: 'SaturationSafetyOverride',
} as const;

// The `autoscaler` controller set (llm-d's saturation autoscaler, docs/autoscaling.md): the ConfigMap
// controller (sole writer of the config cache), the saturation engine loop (reads caches and the metrics
// source only) and the VariantAutoscaling controller (status, events, wva_* metrics).

import type { Controller } from '@modelplane/runtime/controller';
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import {
  DEFAULT_AUTOSCALER_NAMESPACE,
  DEFAULT_CONFIG_MAP_NAME,
  DEFAULT_SATURATION_CONFIG_MAP_NAME,
  DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME,
  LLMD_GROUP,
} from '../../apis/llmd/index.ts';
import { type PolicyRule, READ, rule } from '../rbac.ts';
import type { ControllerSet } from '../registry.ts';
import { ConfigCache } from './config/cache.ts';
import { type ConfigNames, registerConfigController } from './config/controller.ts';
import { DecisionStore } from './decisions.ts';
import { registerDiscoveryControllers } from './discovery/controller.ts';
import { SaturationEngine } from './engine-loop.ts';
import { AutoscalerMetrics } from './metrics.ts';
import { PrometheusMetricsSource } from './metrics-source/prometheus.ts';
import { type MetricsSource, UnconfiguredMetricsSource } from './metrics-source/source.ts';
import { prometheusAuthFromEnv } from './metrics-source/tls.ts';
import { ScaleFromZero } from './scale-from-zero.ts';
import { registerVariantAutoscalingController } from './variantautoscaling/controller.ts';

export interface AutoscalerOptions extends ConfigNames {
  metricsSource: MetricsSource;
  /** CONTROLLER_INSTANCE: handle only VAs labelled wva.llmd.ai/controller-instance=<it> */
  controllerInstance?: string;
  scaleToZeroWindowSeconds?: number;
  /** WVA_SCALE_TO_ZERO: the fallback when the scale-to-zero ConfigMap has no entry for a model */
  scaleToZeroEnv?: boolean;
  historyLimit?: number;
  /** create VariantAutoscalings for annotated ModelDeployments and AIMServices (default true) */
  discovery?: boolean;
  /** start the engine loop once leading (default true; tests drive cycles with engine.runCycle()) */
  autoStart?: boolean;
}

/** what a running autoscaler exposes to `modelplane dev`, tests and the dashboard */
export interface Autoscaler {
  readonly config: ConfigCache;
  readonly decisions: DecisionStore;
  readonly engine: SaturationEngine;
  /** wakes a model at zero when requests wait for it at the gateway */
  readonly fromZero: ScaleFromZero;
  /** the VariantAutoscaling controller (enqueue a VA to have its status written now) */
  readonly controller: Controller;
  readonly options: AutoscalerOptions;
}

export const AUTOSCALER_RBAC_RULES: readonly PolicyRule[] = [
  rule(LLMD_GROUP, ['variantautoscalings'], [...READ, 'create', 'patch', 'delete']),
  // ModelDeployments and AIMServices annotated llm-d.ai/managed: "true" get a VariantAutoscaling
  rule('kubeairunway.ai', ['modeldeployments'], READ),
  rule('aim.eai.amd.com', ['aimservices'], READ),
  rule(LLMD_GROUP, ['variantautoscalings/status'], ['patch']),
  rule('', ['pods', 'namespaces'], READ),
  // only its own ConfigMaps, by name (its watches select them with metadata.name), never every ConfigMap of
  // the cluster; a deployment that renames them (CONFIG_MAP_NAME …) names them here too
  {
    ...rule('', ['configmaps'], READ),
    resourceNames: [DEFAULT_CONFIG_MAP_NAME, DEFAULT_SATURATION_CONFIG_MAP_NAME, DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME],
  },
  rule('apps', ['deployments', 'replicasets'], READ),
  // scale from zero: the one write to a workload, a merge patch of its /scale subresource (an HPA cannot
  // leave 0); the Deployment itself is read from the cache
  rule('apps', ['deployments/scale'], ['patch']),
];

/** the options from the environment, as llm-d's autoscaler reads them */
export function autoscalerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AutoscalerOptions {
  const url = env.PROMETHEUS_BASE_URL;
  return {
    namespace: env.POD_NAMESPACE || DEFAULT_AUTOSCALER_NAMESPACE,
    configMapName: env.CONFIG_MAP_NAME || DEFAULT_CONFIG_MAP_NAME,
    saturationConfigMapName: env.SATURATION_CONFIG_MAP_NAME || DEFAULT_SATURATION_CONFIG_MAP_NAME,
    scaleToZeroConfigMapName: env.SCALE_TO_ZERO_CONFIG_MAP_NAME || DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME,
    ...(env.WVA_SCALE_TO_ZERO ? { scaleToZeroEnv: env.WVA_SCALE_TO_ZERO.toLowerCase() === 'true' } : {}),
    metricsSource: url
      ? new PrometheusMetricsSource({ baseUrl: url, ...prometheusAuthFromEnv(env) })
      : new UnconfiguredMetricsSource(
          'no Prometheus is configured: set PROMETHEUS_BASE_URL to the Prometheus that scrapes the vLLM pods (e.g. http://prometheus.monitoring:9090)',
        ),
    ...(env.CONTROLLER_INSTANCE ? { controllerInstance: env.CONTROLLER_INSTANCE } : {}),
  };
}

export async function registerAutoscaler(mgr: Manager, opts: AutoscalerOptions, log: Logger): Promise<Autoscaler> {
  const config = new ConfigCache();
  const decisions = new DecisionStore(opts.historyLimit);
  const metrics = new AutoscalerMetrics(mgr.metrics.registry, opts.controllerInstance);
  await registerConfigController(mgr, config, opts);
  const controller = await registerVariantAutoscalingController(mgr, {
    decisions,
    metrics,
    metricsSource: opts.metricsSource.description,
    ...(opts.controllerInstance ? { controllerInstance: opts.controllerInstance } : {}),
  });
  if (opts.discovery !== false) await registerDiscoveryControllers(mgr, log);
  const engine = new SaturationEngine({
    reader: mgr.cache,
    config,
    source: opts.metricsSource,
    decisions,
    onDecisions: (keys) => {
      for (const k of keys) controller.enqueue(k);
    },
    log: log.child({ component: 'saturation-engine' }),
    saturationConfigMapName: opts.saturationConfigMapName,
    ...(opts.controllerInstance ? { controllerInstance: opts.controllerInstance } : {}),
    ...(opts.scaleToZeroWindowSeconds ? { scaleToZeroWindowSeconds: opts.scaleToZeroWindowSeconds } : {}),
    ...(opts.scaleToZeroEnv !== undefined ? { scaleToZeroEnv: opts.scaleToZeroEnv } : {}),
  });
  const fromZero = new ScaleFromZero({
    reader: mgr.cache,
    client: mgr.client.withFieldManager('scale-from-zero'),
    source: opts.metricsSource,
    recorder: mgr.recorder('scale-from-zero'),
    log: log.child({ component: 'scale-from-zero' }),
    decisions,
    onDecision: (key) => controller.enqueue(key),
    ...(opts.controllerInstance ? { controllerInstance: opts.controllerInstance } : {}),
  });
  // the engine runs where the controllers run: on the leader, after them (its reads wait for the caches)
  if (opts.autoStart !== false) {
    mgr.add(engine);
    mgr.add(fromZero);
  }
  return { config, decisions, engine, fromZero, controller, options: opts };
}

export function autoscalerControllerSet(
  overrides: Partial<AutoscalerOptions> = {},
  onRegistered?: (a: Autoscaler) => void,
): ControllerSet {
  return {
    name: 'autoscaler',
    description:
      'llm-d saturation autoscaling: VariantAutoscaling → desired replicas (status and wva_desired_replicas) from vLLM metrics in Prometheus',
    async register(mgr, env) {
      const a = await registerAutoscaler(mgr, { ...autoscalerOptionsFromEnv(), ...overrides }, env.log);
      onRegistered?.(a);
      return a;
    },
    rules: AUTOSCALER_RBAC_RULES,
  };
}

// The ConfigMap side of the configuration cache (docs/autoscaling.md, "Configuration"): the only writer of
// the cache. It watches the two ConfigMaps by name (global ones in the autoscaler's namespace; the saturation
// one also namespace-local), parses and validates them, and reports each rejected entry in a log line and a
// Warning event on the ConfigMap that names the entry and the field.

import { type ConfigMap, ConfigMaps, Namespaces } from '@modelplane/runtime/client';
import type { Controller, ReconcileContext, Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { EXCLUDE_ANNOTATION } from '../../../apis/llmd/index.ts';
import type { ConfigCache } from './cache.ts';
import { type EntryProblem, parseOptimizationInterval, parseSaturationConfigMap } from './parse.ts';

export const CONFIG_CONTROLLER = 'wva-configmap';

export interface ConfigNames {
  /** where the global ConfigMaps live (POD_NAMESPACE or workload-variant-autoscaler-system) */
  namespace: string;
  /** CONFIG_MAP_NAME */
  configMapName: string;
  /** SATURATION_CONFIG_MAP_NAME */
  saturationConfigMapName: string;
}

export async function registerConfigController(
  mgr: Manager,
  cache: ConfigCache,
  names: ConfigNames,
): Promise<Controller> {
  const main = { namespace: names.namespace, fieldSelector: `metadata.name=${names.configMapName}` };
  const saturation = { fieldSelector: `metadata.name=${names.saturationConfigMapName}` };
  const toKey = (cm: ConfigMap) => [`${cm.metadata.namespace}/${cm.metadata.name}`];
  return mgr
    .controller(CONFIG_CONTROLLER)
    .for(ConfigMaps, { spec: saturation })
    .watches(ConfigMaps, toKey, { spec: main })
    .complete((req, ctx) => reconcileConfigMap(req, ctx, cache, names));
}

async function reconcileConfigMap(
  req: Request,
  ctx: ReconcileContext,
  cache: ConfigCache,
  names: ConfigNames,
): Promise<void> {
  const ns = req.namespace ?? '';
  if (req.name === names.configMapName && ns === names.namespace) {
    const cm = await ctx.cache.get(ConfigMaps, req.name, ns, {
      namespace: names.namespace,
      fieldSelector: `metadata.name=${names.configMapName}`,
    });
    if (!cm) return; // deleted: the interval in use stays
    const { ms, problem } = parseOptimizationInterval(cm.data);
    if (problem) return report(ctx, cm, [problem], 'the previous interval stays in use');
    if (ms !== undefined && ms !== cache.snapshot().optimizationIntervalMs) {
      cache.setOptimizationInterval(ms);
      ctx.log.info('Updated global optimization config from ConfigMap', {
        interval: cm.data?.GLOBAL_OPT_INTERVAL,
        intervalMs: ms,
      });
    }
    return;
  }
  if (req.name !== names.saturationConfigMapName) return;
  const cm = await ctx.cache.get(ConfigMaps, req.name, ns, {
    fieldSelector: `metadata.name=${names.saturationConfigMapName}`,
  });
  const global = ns === names.namespace;
  if (!cm) {
    if (global)
      ctx.log.info('the saturation ConfigMap was deleted; the last good configuration stays in use', {
        configMap: `${ns}/${req.name}`,
      });
    else cache.removeNamespaceConfig(ns);
    return;
  }
  if (!global && (await isExcluded(ctx, ns))) {
    cache.removeNamespaceConfig(ns);
    return;
  }
  const { config, problems } = parseSaturationConfigMap(cm.data);
  const outcome = cache.setSaturationConfig(global ? 'global' : { namespace: ns }, config);
  if (problems.length)
    report(
      ctx,
      cm,
      problems,
      outcome === 'updated'
        ? 'the entry is skipped, the others are used'
        : 'no entry is usable, the last good configuration stays in use',
    );
  if (outcome === 'updated')
    ctx.log.info(`Updated ${global ? 'global' : 'namespace-local'} saturation config from ConfigMap`, {
      configMap: `${ns}/${req.name}`,
      entries: config.overrides.length + (config.defaultConfig ? 1 : 0),
    });
}

async function isExcluded(ctx: ReconcileContext, namespace: string): Promise<boolean> {
  const n = await ctx.cache.get(Namespaces, namespace);
  return n?.metadata.annotations?.[EXCLUDE_ANNOTATION] === 'true';
}

function report(ctx: ReconcileContext, cm: ConfigMap, problems: EntryProblem[], consequence: string): void {
  for (const p of problems) {
    const message = `ConfigMap ${cm.metadata.namespace}/${cm.metadata.name}: ${p.message}; ${consequence}`;
    ctx.log.error('invalid autoscaler configuration entry skipped', {
      configMap: `${cm.metadata.namespace}/${cm.metadata.name}`,
      entry: p.entry,
      field: p.field,
      message,
    });
    ctx.recorder.event(cm, 'Warning', 'InvalidConfiguration', message, 'Validate');
  }
}

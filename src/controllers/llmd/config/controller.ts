// The ConfigMap side of the configuration cache (docs/autoscaling.md, "Configuration"): the only writer of
// the cache. It watches the two ConfigMaps by name (global ones in the autoscaler's namespace; the saturation
// one also namespace-local), parses and validates them, and reports each rejected entry in a log line and a
// Warning event on the ConfigMap that names the entry and the field. A namespace-local saturation ConfigMap
// counts only in a tracked namespace (one with a VariantAutoscaling, or labelled wva.llmd.ai/config-enabled:
// "true") that is not annotated wva.llmd.ai/exclude: "true".

import { type ConfigMap, ConfigMaps, Namespaces } from '@modelplane/runtime/client';
import {
  annotationsChanged,
  type Controller,
  labelsChanged,
  type ObjectEvent,
  type ReconcileContext,
  type Request,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import {
  CONFIG_ENABLED_LABEL,
  DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME,
  EXCLUDE_ANNOTATION,
} from '../../../apis/llmd/index.ts';
import { VariantAutoscalings } from '../kinds.ts';
import type { ConfigCache } from './cache.ts';
import { type EntryProblem, parseOptimizationInterval, parseSaturationConfigMap } from './parse.ts';
import { parseScaleToZeroConfigMap } from './scale-to-zero.ts';

export const CONFIG_CONTROLLER = 'wva-configmap';

export interface ConfigNames {
  /** where the global ConfigMaps live (POD_NAMESPACE or workload-variant-autoscaler-system) */
  namespace: string;
  /** CONFIG_MAP_NAME */
  configMapName: string;
  /** SATURATION_CONFIG_MAP_NAME */
  saturationConfigMapName: string;
  /** SCALE_TO_ZERO_CONFIG_MAP_NAME (default wva-model-scale-to-zero-config) */
  scaleToZeroConfigMapName?: string;
}

export async function registerConfigController(
  mgr: Manager,
  cache: ConfigCache,
  names: ConfigNames,
): Promise<Controller> {
  const main = { namespace: names.namespace, fieldSelector: `metadata.name=${names.configMapName}` };
  const saturation = { fieldSelector: `metadata.name=${names.saturationConfigMapName}` };
  const zeroName = names.scaleToZeroConfigMapName ?? DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME;
  const zero = { namespace: names.namespace, fieldSelector: `metadata.name=${zeroName}` };
  const toKey = (cm: ConfigMap) => [`${cm.metadata.namespace}/${cm.metadata.name}`];
  // whether a namespace is tracked or excluded changes with its labels, annotations and VAs
  const localKey = (o: { metadata: { name?: string; namespace?: string } }) => {
    const ns = o.metadata.namespace ?? o.metadata.name;
    return ns === names.namespace ? [] : [`${ns}/${names.saturationConfigMapName}`];
  };
  const addOrDelete = (ev: ObjectEvent) => ev.type !== 'update';
  const reported = new Map<string, string>();
  const read = new Set<string>();
  // the readiness gate: on the leader, not ready while a global ConfigMap that exists has not been read
  mgr.addReadyCheck('autoscaler-config', async () => {
    if (!mgr.isLeader) return;
    const unread = await unreadConfigMap(
      names.namespace,
      [
        [names.configMapName, main],
        [names.saturationConfigMapName, saturation],
        [zeroName, zero],
      ],
      read,
      async (name, spec) => (await mgr.cache.get(ConfigMaps, name, names.namespace, spec)) !== undefined,
    );
    if (unread) throw new Error(`the autoscaler has not loaded ConfigMap ${unread} yet`);
  });
  return mgr
    .controller(CONFIG_CONTROLLER)
    .for(ConfigMaps, { spec: saturation })
    .watches(ConfigMaps, toKey, { spec: main })
    .watches(ConfigMaps, toKey, { spec: zero })
    .watches(Namespaces, localKey, { predicates: [(ev) => labelsChanged()(ev) || annotationsChanged()(ev)] })
    .watches(VariantAutoscalings, localKey, { predicates: [addOrDelete] })
    .complete(async (req, ctx) => {
      await reconcileConfigMap(req, { ctx, cache, names, reported });
      read.add(`${req.namespace}/${req.name}`);
    });
}

/** what each read of a ConfigMap works with */
interface ConfigRead {
  ctx: ReconcileContext;
  cache: ConfigCache;
  names: ConfigNames;
  /** the resourceVersion of each ConfigMap whose problems were reported */
  reported: Map<string, string>;
}

async function reconcileConfigMap(req: Request, read: ConfigRead): Promise<void> {
  const { names } = read;
  const ns = req.namespace ?? '';
  const zeroName = names.scaleToZeroConfigMapName ?? DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME;
  if (req.name === zeroName && ns === names.namespace) return readScaleToZeroConfig(read, zeroName);
  if (req.name === names.configMapName && ns === names.namespace) return readOptimizationInterval(read);
  if (req.name === names.saturationConfigMapName) return readSaturationConfig(read, ns);
}

/** what becomes of an entry that does not parse, when the others are usable */
const ENTRY_BY_ENTRY: Record<EntryProblem['consequence'], string> = {
  'kept-last-good': 'the last good version of this entry stays in use',
  skipped: 'the entry is skipped, the others are used',
};

/** a ConfigMap's problems are reported once per version, not on every re-read of the same version */
function firstRead(reported: Map<string, string>, cm: ConfigMap): boolean {
  const key = `${cm.metadata.namespace}/${cm.metadata.name}`;
  if (reported.get(key) === cm.metadata.resourceVersion) return false;
  reported.set(key, cm.metadata.resourceVersion ?? '');
  return true;
}

/** the scale-to-zero policies; a deleted ConfigMap leaves the last good policies in use */
async function readScaleToZeroConfig({ ctx, cache, names, reported }: ConfigRead, zeroName: string): Promise<void> {
  const ns = names.namespace;
  const cm = await ctx.cache.get(ConfigMaps, zeroName, ns, {
    namespace: ns,
    fieldSelector: `metadata.name=${zeroName}`,
  });
  if (!cm) return; // deleted: the last good policies stay
  const { config, problems } = parseScaleToZeroConfigMap(cm.data, cache.snapshot().scaleToZero);
  cache.setScaleToZeroConfig(config);
  if (problems.length && firstRead(reported, cm)) report(ctx, cm, problems, ENTRY_BY_ENTRY);
}

/** GLOBAL_OPT_INTERVAL of the main ConfigMap; a deleted ConfigMap or a bad value leaves the interval in use */
async function readOptimizationInterval({ ctx, cache, names, reported }: ConfigRead): Promise<void> {
  const cm = await ctx.cache.get(ConfigMaps, names.configMapName, names.namespace, {
    namespace: names.namespace,
    fieldSelector: `metadata.name=${names.configMapName}`,
  });
  if (!cm) return; // deleted: the interval in use stays
  const { ms, problem } = parseOptimizationInterval(cm.data);
  if (problem && firstRead(reported, cm))
    report(ctx, cm, [problem], { 'kept-last-good': 'the previous interval stays in use', skipped: '' });
  if (ms !== undefined && ms !== cache.snapshot().optimizationIntervalMs) {
    cache.setOptimizationInterval(ms);
    ctx.log.info('Updated global optimization config from ConfigMap', {
      interval: cm.data?.GLOBAL_OPT_INTERVAL,
      intervalMs: ms,
    });
  }
}

/**
 * The saturation ConfigMap: the global one in the autoscaler's namespace, or a namespace-local one that counts
 * only in a tracked namespace (isTracked). Entries that do not parse keep their last good version.
 */
async function readSaturationConfig({ ctx, cache, names, reported }: ConfigRead, ns: string): Promise<void> {
  const name = names.saturationConfigMapName;
  const cm = await ctx.cache.get(ConfigMaps, name, ns, {
    fieldSelector: `metadata.name=${names.saturationConfigMapName}`,
  });
  const global = ns === names.namespace;
  if (!cm) {
    reported.delete(`${ns}/${name}`);
    if (global)
      ctx.log.info('the saturation ConfigMap was deleted; the last good configuration stays in use', {
        configMap: `${ns}/${name}`,
      });
    else cache.removeNamespaceConfig(ns);
    return;
  }
  if (!global && !(await isTracked(ctx, ns))) {
    cache.removeNamespaceConfig(ns);
    return;
  }
  const previous = global ? cache.snapshot().global : cache.snapshot().namespaces.get(ns);
  const { config, problems } = parseSaturationConfigMap(cm.data, previous);
  const outcome = cache.setSaturationConfig(global ? 'global' : { namespace: ns }, config);
  if (problems.length && firstRead(reported, cm))
    report(
      ctx,
      cm,
      problems,
      outcome === 'updated'
        ? ENTRY_BY_ENTRY
        : {
            'kept-last-good': 'no entry is usable, the last good configuration stays in use',
            skipped: 'no entry is usable, the last good configuration stays in use',
          },
    );
  if (outcome === 'updated')
    ctx.log.info(`Updated ${global ? 'global' : 'namespace-local'} saturation config from ConfigMap`, {
      configMap: `${ns}/${name}`,
      entries: config.overrides.length + (config.defaultConfig ? 1 : 0),
    });
}

/** the first ConfigMap (`namespace/name`) that exists but has not been read into the cache yet */
export async function unreadConfigMap<S>(
  namespace: string,
  configMaps: ReadonlyArray<readonly [string, S]>,
  read: ReadonlySet<string>,
  exists: (name: string, spec: S) => Promise<boolean>,
): Promise<string | undefined> {
  for (const [name, spec] of configMaps) {
    const key = `${namespace}/${name}`;
    if (!read.has(key) && (await exists(name, spec))) return key;
  }
  return undefined;
}

/** a namespace whose local ConfigMap counts: not excluded, and labelled config-enabled or holding a VA */
async function isTracked(ctx: ReconcileContext, namespace: string): Promise<boolean> {
  const n = await ctx.cache.get(Namespaces, namespace);
  if (n?.metadata.annotations?.[EXCLUDE_ANNOTATION] === 'true') return false;
  if (n?.metadata.labels?.[CONFIG_ENABLED_LABEL] === 'true') return true;
  return (await ctx.cache.list(VariantAutoscalings, { namespace })).length > 0;
}

function report(
  ctx: ReconcileContext,
  cm: ConfigMap,
  problems: EntryProblem[],
  consequences: Record<EntryProblem['consequence'], string>,
): void {
  for (const p of problems) {
    const consequence = consequences[p.consequence];
    const message = `ConfigMap ${cm.metadata.namespace}/${cm.metadata.name}: ${p.message}${consequence ? `; ${consequence}` : ''}`;
    ctx.log.warn('invalid autoscaler configuration entry', {
      configMap: `${cm.metadata.namespace}/${cm.metadata.name}`,
      entry: p.entry,
      field: p.field,
      message,
    });
    ctx.recorder.event(cm, 'Warning', 'InvalidConfiguration', message, 'Validate');
  }
}

// Which generated ConfigMaps to delete (docs/llamastack.md, "ConfigMaps"): never one the Deployment or
// any of its ReplicaSets mounts, never the one being applied now; of the rest, the newest are kept so that
// CONFIGMAPS_KEPT generated ConfigMaps remain in total.
import type { ConfigMap } from '@modelplane/runtime/client';
import { CONFIGMAPS_KEPT, type Deployment, type ReplicaSet } from './names.ts';

export function mountedConfigMaps(objs: readonly (Deployment | ReplicaSet)[]): Set<string> {
  const out = new Set<string>();
  for (const o of objs)
    for (const v of o.spec?.template?.spec?.volumes ?? []) if (v.configMap?.name) out.add(v.configMap.name);
  return out;
}

const newestFirst = (a: ConfigMap, b: ConfigMap) => {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? 1 : -1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? 1 : -1;
};

/** the generated ConfigMaps to delete, given the one about to be used and everything that mounts one */
export function configMapsToDelete(
  generated: readonly ConfigMap[],
  current: string | undefined,
  inUse: ReadonlySet<string>,
): ConfigMap[] {
  const protectedNames = new Set(inUse);
  if (current) protectedNames.add(current);
  const candidates = generated.filter((c) => !protectedNames.has(c.metadata.name ?? '')).sort(newestFirst);
  const room = Math.max(0, CONFIGMAPS_KEPT - protectedNames.size);
  return candidates.slice(room);
}

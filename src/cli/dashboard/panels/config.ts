// The generated configuration of a LlamaStackDistribution: the ConfigMap the operator wrote for it (the one
// the Deployment mounts when several hashed versions exist), shown with secrets as references only.
import type { KubeObject } from '@modelplane/runtime/meta';
import { redactConfigText } from '../sanitize.ts';
import type { ConfigPanel } from '../types.ts';

type Loose = Record<string, any>;

/** the ConfigMap names a Deployment's pod template mounts */
function mountedConfigMaps(children: readonly KubeObject[]): Set<string> {
  const names = new Set<string>();
  for (const d of children) {
    if (d.kind !== 'Deployment') continue;
    for (const v of ((d as Loose).spec?.template?.spec?.volumes ?? []) as Loose[])
      if (v.configMap?.name) names.add(v.configMap.name);
  }
  return names;
}

export function configPanels(_owner: KubeObject, children: readonly KubeObject[]): ConfigPanel[] {
  const mounted = mountedConfigMaps(children);
  const maps = children.filter((c) => c.kind === 'ConfigMap');
  // prefer the version the live Deployment mounts; older hashed versions are kept only for rollback
  const live = maps.filter((m) => mounted.has(m.metadata.name ?? ''));
  const chosen = (live.length > 0 ? live : maps).slice(0, 1);
  return chosen.flatMap((cm) =>
    Object.entries(((cm as Loose).data ?? {}) as Record<string, string>).map(([file, text]): ConfigPanel => {
      const { text: safe, secretRefs } = redactConfigText(text);
      return {
        kind: 'config',
        title: file,
        source: `ConfigMap ${cm.metadata.namespace}/${cm.metadata.name}`,
        text: safe,
        secretRefs,
      };
    }),
  );
}

// A provider's optional objects (definition.ts, `optionalObjects`): objects of kinds the cluster may not
// serve, such as llm-d's InferencePool. Fetch finds out whether each kind is served (a kind that is not
// answers NoKindMatch) and what is there; the plan applies what `build` returns while the kind is served,
// and deletes an object of ours that `build` no longer wants. A kind installed later is picked up at the
// deployment's next reconcile.

import { isNoKindMatch } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import type { ObjectReader, PlanResult } from '../../../engine/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { ownedBy } from './desired.ts';

export type OptionalView = { served: false } | { served: true; live?: KubeObject };

export async function readOptionalObjects(
  def: ProviderDefinition,
  md: ModelDeployment,
  reader: ObjectReader,
): Promise<OptionalView[]> {
  return Promise.all(
    (def.optionalObjects ?? []).map(async (o): Promise<OptionalView> => {
      try {
        const live = await reader.get(o.kind, o.name(md), md.metadata.namespace);
        return live ? { served: true, live } : { served: true };
      } catch (err) {
        if (isNoKindMatch(err)) return { served: false };
        throw err;
      }
    }),
  );
}

/** Pure: the optional objects' applies and deletes, added to `out` */
export function planOptionalObjects(
  def: ProviderDefinition,
  md: ModelDeployment,
  views: readonly OptionalView[],
  out: PlanResult,
): void {
  (def.optionalObjects ?? []).forEach((o, i) => {
    const view = views[i];
    if (!view?.served) return;
    const desired = o.build(md);
    if (desired) out.apply(desired);
    else if (view.live && ownedBy(view.live, md)) {
      const { name, namespace, uid } = view.live.metadata;
      out.delete({
        apiVersion: o.kind.apiVersion,
        kind: o.kind.kind,
        metadata: { name, namespace, ...(uid ? { uid } : {}) },
      });
    }
  });
}

// Which upstream APIs the cluster serves, from the CRD cache: "Provider '{name}' CRD not installed in cluster"
// is decided from a provider's status.upstreamCRDVersion, so the core needs no provider knowledge.

import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import type { InferenceProviderConfig } from '../../apis/kubeairunway/index.ts';

/**
 * `group/version` of every served version of every Established CRD, and `group/version/Kind` for each kind
 * there: a group/version stays served while one of its kinds is deleted (rayservices gone, RayCluster left).
 */
export function servedGroupVersions(crds: readonly CustomResourceDefinition[]): Set<string> {
  const out = new Set<string>();
  for (const crd of crds) {
    if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) continue;
    if (crd.metadata.deletionTimestamp) continue;
    for (const v of crd.spec.versions)
      if (v.served) {
        out.add(`${crd.spec.group}/${v.name}`);
        out.add(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`);
      }
  }
  return out;
}

/** the key `served` holds for a provider's upstream API: per kind when the provider says which kind it builds */
export function upstreamKey(provider: Pick<InferenceProviderConfig, 'status'> | undefined): string | undefined {
  const gv = provider?.status?.upstreamCRDVersion;
  if (gv === undefined) return undefined;
  const kind = provider?.status?.upstreamKind;
  return kind ? `${gv}/${kind}` : gv;
}

/**
 * Whether the upstream API of a provider that requires a CRD is served. A provider that does not (yet) say
 * which API it builds counts as not installed: "Provider '{name}' CRD not installed in cluster" until its
 * registration reports status.upstreamCRDVersion and that group/version (and status.upstreamKind, when
 * reported, in it) is served (docs/kubeairunway.md).
 */
export function providerApiServed(
  providers: readonly InferenceProviderConfig[],
  served: ReadonlySet<string>,
  name: string,
): boolean {
  const key = upstreamKey(providers.find((p) => p.metadata.name === name));
  return key !== undefined && served.has(key);
}

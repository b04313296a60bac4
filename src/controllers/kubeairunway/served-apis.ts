// Which upstream APIs the cluster serves, from the CRD cache: "Provider '{name}' CRD not installed in cluster"
// is decided from a provider's status.upstreamCRDVersion, so the core needs no provider knowledge.

import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import type { InferenceProviderConfig } from '../../apis/kubeairunway/index.ts';

/** `group/version` of every served version of every Established CRD */
export function servedGroupVersions(crds: readonly CustomResourceDefinition[]): Set<string> {
  const out = new Set<string>();
  for (const crd of crds) {
    if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) continue;
    for (const v of crd.spec.versions) if (v.served) out.add(`${crd.spec.group}/${v.name}`);
  }
  return out;
}

/**
 * Whether the upstream API of a provider that requires a CRD is served. A provider that does not (yet) say
 * which API it builds counts as not installed: "Provider '{name}' CRD not installed in cluster" until its
 * registration reports status.upstreamCRDVersion and that group/version is served (docs/kubeairunway.md).
 */
export function providerApiServed(
  providers: readonly InferenceProviderConfig[],
  served: ReadonlySet<string>,
  name: string,
): boolean {
  const gv = providers.find((p) => p.metadata.name === name)?.status?.upstreamCRDVersion;
  return gv !== undefined && served.has(gv);
}

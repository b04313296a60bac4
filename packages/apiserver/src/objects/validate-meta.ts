// Metadata validation for every kind: names (per kind's rule), labels, annotations, owner references,
// finalizers. The rules themselves live in ../validation/metadata.ts.
import type { StatusCause } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';
import { validateObjectMeta } from '../validation/metadata.ts';

/** kinds whose names must be DNS-1123 labels (kube validates these more strictly than subdomains) */
const labelNamed = new Set(['/namespaces']);
/** Service names become DNS names, so kube validates them as DNS-1035 labels */
const dns1035Named = new Set(['/services']);
/** kinds whose names are path segments only (RBAC objects may contain ':' and capitals) */
const pathSegmentNamed = new Set([
  'rbac.authorization.k8s.io/roles',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterrolebindings',
]);

export function validateMeta(rt: ResourceType, obj: KubeObject, _old: KubeObject | undefined): StatusCause[] {
  const key = `${rt.group}/${rt.plural}`;
  const nameValidation = labelNamed.has(key)
    ? 'dns1123Label'
    : dns1035Named.has(key)
      ? 'dns1035Label'
      : pathSegmentNamed.has(key)
        ? 'path-segment'
        : 'dns1123Subdomain';
  return validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation });
}

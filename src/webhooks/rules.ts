// Which requests a registered webhook is for. The same `rules` go into the webhook configuration (so
// kube-apiserver only sends matching requests) and are checked again on arrival, so a configuration edited
// by hand to send, say, Pods to the ModelDeployment validator is refused instead of misjudged.
import type { AdmissionRequest, Operation } from './review.ts';

export type RuleOperation = Operation | '*';

/** admissionregistration.k8s.io/v1 RuleWithOperations */
export interface RuleWithOperations {
  operations: RuleOperation[];
  apiGroups: string[];
  apiVersions: string[];
  /** plural resource names, `resource/subresource`, `*`, `*\/*`, `resource/*` */
  resources: string[];
  scope?: 'Cluster' | 'Namespaced' | '*';
}

const anyOf = (list: string[], value: string) => list.includes('*') || list.includes(value);

/** kube's resource matching: `r` is the resource alone, `r/s` one subresource, `r/*` the resource and all its subresources */
function resourceMatches(patterns: string[], resource: string, subresource: string): boolean {
  for (const p of patterns) {
    const slash = p.indexOf('/');
    const res = slash < 0 ? p : p.slice(0, slash);
    const sub = slash < 0 ? '' : p.slice(slash + 1);
    if (res !== '*' && res !== resource) continue;
    if (slash < 0 ? subresource === '' : sub === '*' || sub === subresource) return true;
  }
  return false;
}

/** whether the request's group/version/resource (after kube's version conversion) is one the rule names */
export function ruleCoversResource(
  rule: RuleWithOperations,
  req: Pick<AdmissionRequest, 'resource' | 'subResource' | 'namespace'>,
): boolean {
  if (!anyOf(rule.apiGroups, req.resource.group) || !anyOf(rule.apiVersions, req.resource.version)) return false;
  if (!resourceMatches(rule.resources, req.resource.resource, req.subResource ?? '')) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && !req.namespace) return false;
  if (scope === 'Cluster' && req.namespace && req.resource.resource !== 'namespaces') return false;
  return true;
}

export function ruleCoversOperation(rule: RuleWithOperations, op: Operation): boolean {
  return rule.operations.includes('*') || rule.operations.includes(op);
}

/** `group/version, Resource=r` as a message names it */
export function describeResource(req: Pick<AdmissionRequest, 'resource' | 'subResource'>): string {
  const gv = req.resource.group ? `${req.resource.group}/${req.resource.version}` : req.resource.version;
  return `${gv}, Resource=${req.resource.resource}${req.subResource ? `/${req.subResource}` : ''}`;
}

export function describeRules(rules: RuleWithOperations[]): string {
  return rules
    .map(
      (r) => `${r.resources.join(',')} in ${r.apiGroups.map((g) => g || 'core').join(',')}/${r.apiVersions.join(',')}`,
    )
    .join('; ');
}

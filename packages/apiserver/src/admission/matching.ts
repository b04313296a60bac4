// Which webhooks a request reaches, with kube-apiserver's rules: a rule matches when its scope, operation,
// group, version and resource (with `*`, `pods/status`, `pods/*`, `*/scale`, `*/*`) all match; with
// matchPolicy Equivalent a rule naming another served version of the same resource matches too, and the
// webhook is then sent the object in that version. namespaceSelector sees the namespace's labels (the
// object's own for Namespace writes; cluster-scoped objects always match); objectSelector matches when
// the new or the old object's labels match.
import { errors } from '../errors.ts';
import type { AdmissionAttributes } from '../objects/hooks.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import type { CompiledWebhook, WebhookRule } from './config.ts';

export interface RequestFacts {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  operation: string;
  /** '' for cluster-scoped requests other than on a Namespace itself */
  namespace: string;
  isNamespace: boolean;
}

export function requestFacts(attrs: AdmissionAttributes): RequestFacts {
  const isNamespace = attrs.rt.group === '' && attrs.rt.plural === 'namespaces';
  return {
    group: attrs.rt.group,
    version: attrs.version,
    resource: attrs.rt.plural,
    subresource: attrs.subresource ?? '',
    operation: attrs.operation,
    namespace: isNamespace ? attrs.name : (attrs.namespace ?? ''),
    isNamespace,
  };
}

const listMatches = (list: string[], value: string) => list.some((x) => x === '*' || x === value);

export function ruleMatches(rule: WebhookRule, f: RequestFacts): boolean {
  if (rule.scope === 'Namespaced' && (f.isNamespace || f.namespace === '')) return false;
  if (rule.scope === 'Cluster' && !(f.isNamespace || f.namespace === '')) return false;
  if (!listMatches(rule.operations, f.operation)) return false;
  if (!listMatches(rule.apiGroups, f.group) || !listMatches(rule.apiVersions, f.version)) return false;
  return rule.resources.some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === f.resource) && (sub === '*' || sub === f.subresource);
  });
}

/**
 * The version the webhook is to be called with: the request's own when a rule matches it, otherwise (with
 * matchPolicy Equivalent) the first other served version of the resource an earlier rule names.
 */
export function matchingVersion(hook: CompiledWebhook, rt: ResourceType, f: RequestFacts): string | undefined {
  if (hook.rules.some((r) => ruleMatches(r, f))) return f.version;
  if (hook.matchPolicy !== 'Equivalent') return undefined;
  for (const rule of hook.rules) {
    for (const v of rt.versions) {
      if (!v.served || v.name === f.version) continue;
      if (ruleMatches(rule, { ...f, version: v.name })) return v.name;
    }
  }
  return undefined;
}

/** Labels the namespaceSelector is matched against, or undefined for cluster-scoped objects (always match). */
function namespaceLabels(
  store: ObjectStore,
  attrs: AdmissionAttributes,
  f: RequestFacts,
  object: KubeObject | undefined,
): Record<string, string> | undefined {
  if (f.isNamespace && attrs.operation !== 'DELETE' && object) return object.metadata.labels ?? {};
  if (f.namespace === '') return undefined;
  const ns = store.get('/namespaces', undefined, f.namespace);
  if (!ns) throw errors.notFound('namespaces', '', f.namespace);
  return ns.metadata.labels ?? {};
}

export function selectorsMatch(
  hook: CompiledWebhook,
  store: ObjectStore,
  attrs: AdmissionAttributes,
  f: RequestFacts,
  object: KubeObject | undefined,
): boolean {
  const nsSel = hook.namespaceSelector;
  if (nsSel instanceof Error) throw errors.internal(nsSel.message);
  if (!nsSel.empty()) {
    const labels = namespaceLabels(store, attrs, f, object);
    if (labels && !nsSel.matches(labels)) return false;
  }
  const objSel = hook.objectSelector;
  if (objSel instanceof Error) throw errors.internal(objSel.message);
  if (objSel.empty()) return true;
  const matches = (o: KubeObject | undefined) => o !== undefined && objSel.matches(o.metadata?.labels ?? {});
  return matches(object) || matches(attrs.oldObject);
}

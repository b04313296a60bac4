// kube-apiserver's PodSecurity admission plugin (enabled by default in 1.32), as a built-in validator:
// - Pods (create, and updates that change images or seccomp annotations or add containers) are refused
//   with 403 when they break the namespace's `enforce` level, get `Warning`s for its `warn` level and an
//   audit annotation for its `audit` level;
// - workloads with a pod template (Deployment, ReplicaSet, Job, …) only get the warnings and audit
//   annotation: their pods are checked when created;
// - Namespaces must carry valid pod-security labels (422 otherwise), and tightening `enforce` returns
//   warnings naming the existing pods the new level would refuse.
// Unlabelled namespaces are privileged, and nothing is exempt unless configured (kube-system included).
import { errors, type StatusCause, type StatusError } from '../../errors.ts';
import type { AdmissionAttributes } from '../../objects/hooks.ts';
import { deepEqual } from '../../objects/meta.ts';
import type { ObjectStore } from '../../storage/store.ts';
import type { KubeObject } from '../../types.ts';
import { aggregateMessage, causeString, goQuote } from '../../validation/field-errors.ts';
import { evaluatePod, forbiddenDetail } from './evaluator.ts';
import { existingPodWarnings } from './existing-pods.ts';
import {
  compareLevels,
  DEFAULT_POLICY,
  LABEL_PREFIX,
  type LevelVersion,
  levelVersionString,
  type NamespacePolicy,
  policyFromLabels,
  sameLevelVersion,
  sameVersion,
} from './levels.ts';
import { isSignificantPodUpdate, POD_TEMPLATE_KINDS, type PodLike, podOf } from './pod-templates.ts';

/** PodSecurityConfiguration: the policy of unlabelled namespaces, and what is never checked. */
export interface PodSecurityConfig {
  defaults?: NamespacePolicy;
  exemptions?: { namespaces?: string[]; usernames?: string[]; runtimeClasses?: string[] };
}

/**
 * The attributes of a write, plus where its audit annotations go when the request has an audit event
 * to attach them to (keys come prefixed `pod-security.kubernetes.io/`, e.g. `…/audit-violations`).
 */
export type PodSecurityAttributes = AdmissionAttributes & { auditAnnotations?: Record<string, string> };

/** pod subresources that cannot change what the checks see; any other pod subresource is checked */
const IGNORED_POD_SUBRESOURCES = new Set([
  'exec',
  'attach',
  'binding',
  'eviction',
  'log',
  'portforward',
  'proxy',
  'status',
]);

type Store = Pick<ObjectStore, 'get' | 'list'>;

export function podSecurityAdmission(
  store: Store,
  config: PodSecurityConfig = {},
): (attrs: PodSecurityAttributes) => void {
  const admission = new PodSecurityAdmission(store, config);
  return (attrs) => admission.check(attrs);
}

class PodSecurityAdmission {
  private readonly defaults: NonNullable<PodSecurityConfig['defaults']>;
  private readonly exempt: {
    namespace: (ns: string | undefined) => boolean;
    user: (name: string) => boolean;
    runtimeClass: (rc: string | undefined) => boolean;
  };

  constructor(
    private readonly store: Store,
    config: PodSecurityConfig,
  ) {
    this.defaults = config.defaults ?? DEFAULT_POLICY;
    this.exempt = {
      namespace: (ns) => !!ns && (config.exemptions?.namespaces ?? []).includes(ns),
      user: (name) => !!name && (config.exemptions?.usernames ?? []).includes(name),
      runtimeClass: (rc) => !!rc && (config.exemptions?.runtimeClasses ?? []).includes(rc),
    };
  }

  /** an exempt namespace or user: nothing is checked, the audit event says why */
  private exempted(attrs: PodSecurityAttributes, ns: string | undefined): boolean {
    const reason = this.exempt.namespace(ns) ? 'namespace' : this.exempt.user(attrs.user.username) ? 'user' : undefined;
    if (reason) annotate(attrs, { exempt: reason });
    return reason !== undefined;
  }

  // (a namespace that is gone reads as unlabelled: nothing can be created in it anyway)
  private namespacePolicy(ns: string | undefined) {
    return policyFromLabels(
      ns ? this.store.get('/namespaces', undefined, ns)?.metadata.labels : undefined,
      this.defaults,
    );
  }

  /** EvaluatePod: annotations always, warnings unless refused, and the refusal itself when enforcing. */
  private evaluate(
    attrs: PodSecurityAttributes,
    policy: NamespacePolicy,
    policyErrors: StatusCause[],
    pod: PodLike,
    enforce: boolean,
  ): void {
    if (this.exempt.runtimeClass((pod.spec as { runtimeClassName?: string }).runtimeClassName)) {
      annotate(attrs, { exempt: 'runtimeClass' });
      return;
    }
    const annotations: Record<string, string> = {};
    if (policyErrors.length > 0)
      annotations.error = `Failed to parse policy: ${aggregateMessage(policyErrors.map(causeString))}`;
    // modes sharing a level and version share one evaluation
    const results = new Map<string, string>();
    const detailFor = (lv: LevelVersion): string => {
      const key = levelVersionString(lv);
      if (!results.has(key)) results.set(key, forbiddenDetail(evaluatePod(lv, pod.meta, pod.spec)));
      return results.get(key)!;
    };
    let refusal: StatusError | undefined;
    if (enforce) {
      annotations['enforce-policy'] = levelVersionString(policy.enforce);
      const detail = detailFor(policy.enforce);
      if (detail)
        refusal = forbidden(attrs, `violates PodSecurity ${goQuote(levelVersionString(policy.enforce))}: ${detail}`);
    }
    const auditDetail = detailFor(policy.audit);
    if (auditDetail)
      annotations['audit-violations'] =
        `would violate PodSecurity ${goQuote(levelVersionString(policy.audit))}: ${auditDetail}`;
    // a request about to be refused gets no warnings on top
    if (!refusal) {
      const warnDetail = detailFor(policy.warn);
      if (warnDetail)
        attrs.warnings.push(`would violate PodSecurity ${goQuote(levelVersionString(policy.warn))}: ${warnDetail}`);
    }
    annotate(attrs, annotations);
    if (refusal) throw refusal;
  }

  private validatePod(attrs: PodSecurityAttributes, pod: KubeObject): void {
    if (attrs.subresource && IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return;
    const ns = attrs.namespace ?? pod.metadata.namespace;
    if (this.exempted(attrs, ns)) return;
    const { policy, errors: policyErrors } = this.namespacePolicy(ns);
    if (
      policyErrors.length === 0 &&
      policy.enforce.level === 'privileged' &&
      policy.audit.level === 'privileged' &&
      policy.warn.level === 'privileged'
    ) {
      annotate(attrs, { 'enforce-policy': 'privileged:latest' });
      return;
    }
    if (attrs.oldObject && !isSignificantPodUpdate(pod, attrs.oldObject)) return;
    this.evaluate(attrs, policy, policyErrors, podOf(pod), true);
  }

  private validateWorkload(
    attrs: PodSecurityAttributes,
    obj: KubeObject,
    extract: (o: KubeObject) => PodLike | undefined,
  ): void {
    if (attrs.subresource) return;
    const ns = attrs.namespace ?? obj.metadata.namespace;
    if (this.exempted(attrs, ns)) return;
    const { policy, errors: policyErrors } = this.namespacePolicy(ns);
    if (policyErrors.length === 0 && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') return;
    const pod = extract(obj);
    if (pod) this.evaluate(attrs, policy, policyErrors, pod, false);
  }

  private validateNamespace(attrs: PodSecurityAttributes, ns: KubeObject): void {
    if (attrs.subresource) return;
    const name = ns.metadata.name ?? attrs.name;
    const next = policyFromLabels(ns.metadata.labels, this.defaults);
    const invalid = () => errors.invalid('Namespace', '', name, next.errors);
    if (!attrs.oldObject) {
      if (next.errors.length > 0) throw invalid();
      return;
    }
    const prev = policyFromLabels(attrs.oldObject.metadata.labels, this.defaults);
    // labels that were already invalid do not block unrelated updates
    if (next.errors.length > 0 && (prev.errors.length === 0 || !deepEqual(next.errors, prev.errors))) throw invalid();
    const [now, before] = [next.policy.enforce, prev.policy.enforce];
    if (sameLevelVersion(now, before) || now.level === 'privileged') return;
    if (sameVersion(now.version, before.version) && compareLevels(now.level, before.level) < 1) return;
    if (this.exempt.namespace(name)) {
      annotate(attrs, { exempt: 'namespace' });
      return;
    }
    attrs.warnings.push(...existingPodWarnings(name, now, this.store.list('/pods', name), this.exempt.runtimeClass));
  }

  check(attrs: PodSecurityAttributes): void {
    // custom resources: this one test is all PodSecurity costs them
    if (!attrs.rt.builtin) return;
    const obj = attrs.object;
    if (!obj || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
    const key = attrs.rt.storageKey;
    if (key === '/pods') this.validatePod(attrs, obj);
    else if (key === '/namespaces') this.validateNamespace(attrs, obj);
    else {
      const extract = POD_TEMPLATE_KINDS.get(key);
      if (extract) this.validateWorkload(attrs, obj, extract);
    }
  }
}

/** admission.NewForbidden for the pod: `pods "x" is forbidden: <why>` */
function forbidden(attrs: AdmissionAttributes, why: string): StatusError {
  const resource = attrs.rt.group ? `${attrs.rt.plural}.${attrs.rt.group}` : attrs.rt.plural;
  return errors.forbidden(`${resource} ${goQuote(attrs.name)} is forbidden: ${why}`, {
    name: attrs.name,
    ...(attrs.rt.group ? { group: attrs.rt.group } : {}),
    kind: attrs.rt.plural,
  });
}

function annotate(attrs: PodSecurityAttributes, annotations: Record<string, string>): void {
  if (!attrs.auditAnnotations) return;
  for (const [k, v] of Object.entries(annotations)) attrs.auditAnnotations[LABEL_PREFIX + k] = v;
}

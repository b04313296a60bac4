// Mutating/ValidatingWebhookConfiguration objects compiled into ready-to-match webhooks. Compiled once per
// change: the cache compares the stored objects by identity (the store never mutates an object, every write
// stores a new one), so a request costs one list of a small table and no recompilation. Configurations are
// taken in name order and webhooks in their listed order, as kube-apiserver's configuration manager does.
import { type CelProgram, compileCel } from '@modelplane/apimachinery/cel';
import { LabelSelector, type LabelSelectorObject, labelSelectorFromObject } from '../selectors/labels.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import type { WebhookClientConfig } from './webhook-client.ts';

export const MUTATING_CONFIGS = 'admissionregistration.k8s.io/mutatingwebhookconfigurations';
export const VALIDATING_CONFIGS = 'admissionregistration.k8s.io/validatingwebhookconfigurations';

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: 'Cluster' | 'Namespaced' | '*';
}

export interface MatchCondition {
  name: string;
  /** the compiled expression, or why it does not compile (evaluated as an error, like kube's) */
  program: CelProgram | Error;
}

export interface CompiledWebhook {
  name: string;
  configurationName: string;
  /** stable identity within one admission pass (reinvocation bookkeeping) */
  id: string;
  rules: WebhookRule[];
  matchPolicy: 'Exact' | 'Equivalent';
  /** a selector that does not parse fails the request that reaches it, as kube's internal error does */
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
  matchConditions: MatchCondition[];
  failurePolicy: 'Fail' | 'Ignore';
  timeoutMs: number;
  sideEffects: string | undefined;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  clientConfig: WebhookClientConfig;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function compileSelector(v: unknown): LabelSelector | Error {
  if (v === undefined || v === null) return LabelSelector.everything();
  try {
    return labelSelectorFromObject(v as LabelSelectorObject);
  } catch (e) {
    return e as Error;
  }
}

const MATCH_CONDITION_VARIABLES = ['object', 'oldObject', 'request', 'authorizer'];

function compileConditions(v: unknown): MatchCondition[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((c) => {
    const name = String(c.name ?? '');
    try {
      return { name, program: compileCel(String(c.expression ?? ''), { variables: MATCH_CONDITION_VARIABLES }) };
    } catch (e) {
      return { name, program: e as Error };
    }
  });
}

/** One webhook entry, with the API defaults applied (they may be missing on objects written around the API). */
export function compileWebhook(configurationName: string, index: number, w: Obj): CompiledWebhook {
  const rules: WebhookRule[] = (Array.isArray(w.rules) ? w.rules : []).filter(isObj).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: r.scope === 'Cluster' || r.scope === 'Namespaced' ? r.scope : '*',
  }));
  const timeoutSeconds =
    typeof w.timeoutSeconds === 'number' && Number.isFinite(w.timeoutSeconds) ? w.timeoutSeconds : 10;
  const cc = isObj(w.clientConfig) ? w.clientConfig : {};
  const service = isObj(cc.service) ? cc.service : undefined;
  return {
    name: String(w.name ?? ''),
    configurationName,
    id: `${configurationName}/${index}`,
    rules,
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: compileSelector(w.namespaceSelector),
    objectSelector: compileSelector(w.objectSelector),
    matchConditions: compileConditions(w.matchConditions),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    // kube validates 1..30; clamp so a request can never wait longer than kube would allow
    timeoutMs: Math.min(30, Math.max(1, timeoutSeconds)) * 1000,
    sideEffects: typeof w.sideEffects === 'string' ? w.sideEffects : undefined,
    admissionReviewVersions: strings(w.admissionReviewVersions),
    reinvocationPolicy: w.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    clientConfig: {
      ...(typeof cc.url === 'string' ? { url: cc.url } : {}),
      ...(service
        ? {
            service: {
              ...(typeof service.namespace === 'string' ? { namespace: service.namespace } : {}),
              ...(typeof service.name === 'string' ? { name: service.name } : {}),
              ...(typeof service.path === 'string' ? { path: service.path } : {}),
              port: typeof service.port === 'number' ? service.port : 443,
            },
          }
        : {}),
      ...(typeof cc.caBundle === 'string' ? { caBundle: cc.caBundle } : {}),
    },
  };
}

/** The compiled webhooks of one configuration kind, recompiled only when a configuration changes. */
export class WebhookConfigCache {
  private seen: KubeObject[] = [];
  private compiled: CompiledWebhook[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly storageKey: string,
  ) {}

  current(): CompiledWebhook[] {
    const configs = this.store.list(this.storageKey);
    if (configs.length === this.seen.length && configs.every((c, i) => c === this.seen[i])) return this.compiled;
    const out: CompiledWebhook[] = [];
    for (const cfg of configs) {
      const hooks = Array.isArray(cfg.webhooks) ? cfg.webhooks : [];
      hooks.forEach((w, i) => {
        if (isObj(w)) out.push(compileWebhook(cfg.metadata.name ?? '', i, w));
      });
    }
    this.seen = configs;
    this.compiled = out;
    return out;
  }
}

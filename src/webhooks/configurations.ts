// The Mutating/ValidatingWebhookConfiguration objects for a set of registered webhooks, and the CRD
// `spec.conversion` stanza for a conversion path. deploy/ manifests (Service reference) and `modelplane dev`
// (Service reference resolved by the embedded API server, or a URL) are generated from here, so what is
// registered in code and what kube-apiserver calls cannot drift. caBundle is left out unless given: the
// running server injects it.
import type { CustomResourceConversion } from '@modelplane/apimachinery/builtin';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { AdmissionWebhookSpec, Route } from './dispatch.ts';

export interface ServiceTarget {
  service: { name: string; namespace: string; port?: number };
}
/** `url` is the server's base URL (https://host:port); each webhook's path is appended */
export interface UrlTarget {
  url: string;
}
export type ClientTarget = ServiceTarget | UrlTarget;

export interface BuildOptions {
  /** one name for both kinds, or a name per kind */
  name: string | { mutating: string; validating: string };
  target: ClientTarget;
  /** base64 PEM; omitted = left for the CA injector */
  caBundle?: string;
  labels?: Record<string, string>;
}

function clientConfig(target: ClientTarget, path: string, caBundle: string | undefined): Record<string, unknown> {
  const ca = caBundle ? { caBundle } : {};
  if ('url' in target) return { url: target.url.replace(/\/+$/, '') + path, ...ca };
  const { name, namespace, port } = target.service;
  return { service: { name, namespace, path, ...(port !== undefined && port !== 443 ? { port } : {}) }, ...ca };
}

function webhookEntry(
  route: Route & { spec: AdmissionWebhookSpec },
  target: ClientTarget,
  caBundle: string | undefined,
): Record<string, unknown> {
  const s = route.spec;
  const entry: Record<string, unknown> = {
    name: s.name,
    clientConfig: clientConfig(target, route.path, caBundle),
    rules: s.rules.map((r) => ({
      operations: r.operations,
      apiGroups: r.apiGroups,
      apiVersions: r.apiVersions,
      resources: r.resources,
      scope: r.scope ?? '*',
    })),
    failurePolicy: s.failurePolicy ?? 'Fail',
    sideEffects: s.sideEffects ?? 'None',
    admissionReviewVersions: s.admissionReviewVersions ?? ['v1'],
    timeoutSeconds: s.timeoutSeconds ?? 10,
    matchPolicy: s.matchPolicy ?? 'Equivalent',
  };
  if (s.namespaceSelector) entry.namespaceSelector = s.namespaceSelector;
  if (s.objectSelector) entry.objectSelector = s.objectSelector;
  if (s.matchConditions?.length) entry.matchConditions = s.matchConditions;
  if (route.type === 'mutating') entry.reinvocationPolicy = s.reinvocationPolicy ?? 'Never';
  return entry;
}

/** the configurations for `routes`: a MutatingWebhookConfiguration and/or a ValidatingWebhookConfiguration (none when empty) */
export function buildWebhookConfigurations(routes: Route[], opts: BuildOptions): KubeObject[] {
  const names = typeof opts.name === 'string' ? { mutating: opts.name, validating: opts.name } : opts.name;
  const out: KubeObject[] = [];
  for (const type of ['mutating', 'validating'] as const) {
    const mine = routes.filter((r): r is Route & { spec: AdmissionWebhookSpec } => r.type === type);
    if (mine.length === 0) continue;
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: { name: names[type], ...(opts.labels ? { labels: opts.labels } : {}) },
      webhooks: mine.map((r) => webhookEntry(r, opts.target, opts.caBundle)),
    });
  }
  return out;
}

/** a CRD's `spec.conversion` for a conversion webhook served at `path` */
export function conversionStanza(path: string, target: ClientTarget, caBundle?: string): CustomResourceConversion {
  return {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig(target, path, caBundle) },
  };
}

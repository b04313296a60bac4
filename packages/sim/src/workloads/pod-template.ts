// Pods from templates, and the pod-template-hash that names a Deployment's ReplicaSets.

import { controllerRef, type KubeObject } from '@modelplane/runtime/meta';
import type { Pod, PodTemplateSpec } from './kinds.ts';
import { canonicalJson, fnv32a, safeEncodeString } from './util.ts';

export const POD_TEMPLATE_HASH = 'pod-template-hash';

/**
 * controller.ComputeHash: FNV-32a of the template (plus the collision count, when a name was taken),
 * encoded with kube's safe alphabet, e.g. `7c5ddbdf54`.
 */
export function templateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let text = canonicalJson(template);
  if (collisionCount !== undefined && collisionCount > 0) text += `#${collisionCount}`;
  return safeEncodeString(String(fnv32a(text)));
}

/** the template without the pod-template-hash label, to compare a ReplicaSet's template with its Deployment's */
export function withoutHashLabel(template: PodTemplateSpec): PodTemplateSpec {
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH];
  const metadata = { ...(template.metadata ?? {}), labels };
  if (Object.keys(labels).length === 0) delete (metadata as { labels?: unknown }).labels;
  return { ...template, metadata };
}

export function equalTemplates(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  return (
    canonicalJson(normalizeTemplate(withoutHashLabel(a))) === canonicalJson(normalizeTemplate(withoutHashLabel(b)))
  );
}

/** empty maps and metadata say the same as absent ones */
function normalizeTemplate(t: PodTemplateSpec): PodTemplateSpec {
  const meta = t.metadata ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    if (v && typeof v === 'object' && Object.keys(v).length === 0) continue;
    if (k === 'creationTimestamp' && v === null) continue;
    out[k] = v;
  }
  return { ...t, metadata: out };
}

/** a pod for `owner` from its template: generateName `<owner>-`, the template's labels and annotations */
export function podFromTemplate(
  owner: KubeObject,
  template: PodTemplateSpec,
  extra: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    generateName?: string;
    hostname?: string;
  } = {},
): Pod {
  const labels = { ...(template.metadata?.labels ?? {}), ...(extra.labels ?? {}) };
  const annotations = { ...(template.metadata?.annotations ?? {}), ...(extra.annotations ?? {}) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: extra.generateName ?? `${owner.metadata.name}-`,
      namespace: owner.metadata.namespace!,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [controllerRef(owner, { blockOwnerDeletion: true })],
    },
    spec: { ...structuredClone(template.spec), ...(extra.hostname ? { hostname: extra.hostname } : {}) },
  };
}

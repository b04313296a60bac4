// The label-propagation hook. Before anything is applied, every planned object passes through the
// pipeline's propagators; each says which labels the child should carry (the AIM runtime-config rules
// decide which parent labels qualify). The merge rules are the engine's, the same for every controller:
// a child's own labels always win, and Jobs get the labels on their pod template too.

import type { KubeObject } from '@modelplane/runtime/meta';

export interface LabelPropagationContext<C = unknown> {
  /** the reconciled object */
  parent: KubeObject;
  /** the merged runtime config, when the kind has one and it resolved */
  runtimeConfig: C | undefined;
}

/** returns the labels `child` should get (nothing to add: undefined or {}) */
export type LabelPropagator<C = unknown> = (
  child: KubeObject,
  ctx: LabelPropagationContext<C>,
) => Record<string, string> | undefined;

/** a propagator adding fixed labels, e.g. `app.kubernetes.io/managed-by` */
export function staticLabels(labels: Record<string, string>): LabelPropagator<unknown> {
  return () => labels;
}

/** kinds whose pod template also gets propagated labels */
const POD_TEMPLATE_KINDS = new Set(['Job']);

/** a copy of `child` with `labels` added where the child does not set the key already */
export function addLabelsIfAbsent(child: KubeObject, labels: Record<string, string>): KubeObject {
  const entries = Object.entries(labels);
  if (entries.length === 0) return child;
  const own = child.metadata.labels ?? {};
  const out: KubeObject = { ...child, metadata: { ...child.metadata, labels: { ...own } } };
  for (const [k, v] of entries) if (!Object.hasOwn(own, k)) out.metadata.labels![k] = v;
  if (POD_TEMPLATE_KINDS.has(child.kind)) addToPodTemplate(out, entries);
  return out;
}

function addToPodTemplate(obj: KubeObject, entries: Array<[string, string]>): void {
  const spec = obj.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined;
  if (!spec || typeof spec !== 'object') return;
  const template = spec.template ?? {};
  const own = template.metadata?.labels ?? {};
  const labels = { ...own };
  for (const [k, v] of entries) if (!Object.hasOwn(own, k)) labels[k] = v;
  obj.spec = { ...spec, template: { ...template, metadata: { ...(template.metadata ?? {}), labels } } };
}

/** runs every propagator on `child`, in order; earlier propagators' labels win over later ones */
export function propagateLabels<C>(
  child: KubeObject,
  propagators: readonly LabelPropagator<C>[],
  ctx: LabelPropagationContext<C>,
): KubeObject {
  let out = child;
  for (const p of propagators) {
    const labels = p(out, ctx);
    if (labels) out = addLabelsIfAbsent(out, labels);
  }
  return out;
}

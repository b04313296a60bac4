// The overview's row for an object: the terminal view's state and reason (src/cli/view/rows.ts) plus a
// short kind-specific note. Pure.
import type { KubeObject } from '@modelplane/runtime/meta';
import { rowKey, rowOf } from '../view/rows.ts';
import type { ChildView, ResourceSummary } from './types.ts';

type Loose = Record<string, any>;

/** the one fact a person looks for first, per kind */
export function noteOf(obj: KubeObject): string | undefined {
  const status = (obj.status ?? {}) as Loose;
  const spec = ((obj as Loose).spec ?? {}) as Loose;
  switch (obj.kind) {
    case 'ModelDeployment':
      return status.provider?.name
        ? `provider ${status.provider.name}`
        : spec.provider?.name
          ? `provider ${spec.provider.name} (requested)`
          : undefined;
    case 'AIMService':
      return status.routing?.path ? `route ${status.routing.path}` : undefined;
    case 'VariantAutoscaling': {
      const desired = status.desiredOptimizedAlloc?.numReplicas;
      return typeof desired === 'number'
        ? `desired ${desired} replica${desired === 1 ? '' : 's'}${status.desiredOptimizedAlloc?.accelerator ? ` on ${status.desiredOptimizedAlloc.accelerator}` : ''}`
        : undefined;
    }
    case 'LlamaStackDistribution': {
      const replicas = status.availableReplicas ?? status.readyReplicas;
      return replicas !== undefined
        ? `${replicas} ready`
        : status.version?.llamaStackServerVersion
          ? `server ${status.version.llamaStackServerVersion}`
          : undefined;
    }
    default:
      return undefined;
  }
}

export function summaryOf(obj: KubeObject): ResourceSummary {
  const row = rowOf(obj);
  const note = noteOf(obj);
  const { group, kind, namespace, name, state, reason, ready, tone } = row;
  return {
    key: rowKey(row),
    group,
    kind,
    namespace,
    name,
    state,
    reason,
    ready,
    tone,
    ...(row.createdAt ? { createdAt: row.createdAt } : {}),
    ...(note ? { detail: note } : {}),
  };
}

export function childOf(obj: KubeObject, linkable: boolean): ChildView {
  const row = rowOf(obj);
  return {
    ...(linkable ? { key: rowKey(row) } : {}),
    group: row.group,
    kind: row.kind,
    namespace: row.namespace,
    name: row.name,
    state: row.state,
    reason: row.reason,
    tone: row.tone,
  };
}

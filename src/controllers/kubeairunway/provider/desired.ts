// The desired upstream object, built the same way for every provider: the provider's transform, then the
// overrides deep-merged in, then the skeleton's metadata (name and namespace of the ModelDeployment, the
// propagated `kubeairunway.ai/` labels, the managed-by label, the identity record and the controller
// ownerReference). Pure: the reconciler applies the result with server-side apply.

import { controllerRef, type KubeObject } from '@modelplane/runtime/meta';
import {
  LABEL_PREFIX,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ModelDeployment,
  type ModelDeploymentSpec,
} from '../../../apis/kubeairunway/index.ts';
import {
  defaultModelDeployment,
  type IdentityChange,
  identityChanges,
  modelSourceOf,
  servingModeOf,
} from '../validation/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { mergeOverrides } from './merge.ts';
import { IDENTITY_ANNOTATION } from './names.ts';

/** the identity-field values an upstream object was built from (docs/kubeairunway.md: "Identity fields") */
export interface IdentityRecord {
  'model.id': string;
  'model.source': string;
  'engine.type': string;
  'serving.mode': string;
  'provider.name': string;
}

export function identityOf(md: Pick<ModelDeployment, 'spec'>, provider: string): IdentityRecord {
  const spec = md.spec ?? { model: {} };
  return {
    'model.id': spec.model?.id ?? '',
    'model.source': modelSourceOf(spec),
    'engine.type': spec.engine?.type ?? '',
    'serving.mode': servingModeOf(spec),
    'provider.name': provider,
  };
}

/** the record on an upstream object, or undefined when it has none (or an unreadable one) */
export function recordedIdentity(obj: KubeObject): IdentityRecord | undefined {
  const raw = obj.metadata.annotations?.[IDENTITY_ANNOTATION];
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<IdentityRecord>;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const field = (k: keyof IdentityRecord) => (typeof parsed[k] === 'string' ? parsed[k] : '');
    return {
      'model.id': field('model.id'),
      'model.source': field('model.source'),
      'engine.type': field('engine.type'),
      'serving.mode': field('serving.mode'),
      'provider.name': field('provider.name'),
    };
  } catch {
    return undefined;
  }
}

function specOf(record: IdentityRecord): ModelDeploymentSpec {
  return {
    model: {
      ...(record['model.id'] ? { id: record['model.id'] } : {}),
      source: record['model.source'] as 'huggingface' | 'custom',
    },
    ...(record['engine.type']
      ? { engine: { type: record['engine.type'] as NonNullable<ModelDeploymentSpec['engine']>['type'] } }
      : {}),
    serving: { mode: record['serving.mode'] as 'aggregated' | 'disaggregated' },
  };
}

/**
 * The identity fields that changed since `upstream` was built (the validation package's rules: defaults
 * applied, engine.type only when both sides name one). provider.name is left out: a provider only
 * reconciles deployments whose status names it, and a provider switch is the old provider releasing the
 * deployment (see lifecycle.ts), not a recreate by this one. No record (an object built before records
 * existed) means no known change.
 */
export function identityChangesSince(upstream: KubeObject, md: Pick<ModelDeployment, 'spec'>): IdentityChange[] {
  const record = recordedIdentity(upstream);
  if (!record) return [];
  return identityChanges({ spec: specOf(record) }, { spec: md.spec }).filter((c) => c.field !== 'provider.name');
}

/** "engine.type changed from vllm to sglang" (several joined with ", ") */
export function describeIdentityChanges(changes: readonly IdentityChange[]): string {
  return changes.map((c) => `${c.field} changed from ${c.from || '(unset)'} to ${c.to || '(unset)'}`).join(', ');
}

/**
 * Labels for the upstream object: the ModelDeployment's `kubeairunway.ai/` labels, then the transform's
 * own (a user label cannot spoof what the provider sets, e.g. the model-deployment link), then managed-by,
 * which the controller always sets.
 */
export function upstreamLabels(
  md: Pick<ModelDeployment, 'metadata'>,
  own: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.metadata.labels ?? {})) if (k.startsWith(LABEL_PREFIX)) out[k] = v;
  Object.assign(out, own ?? {});
  out[MANAGED_BY_LABEL] = MANAGED_BY_VALUE;
  return out;
}

/**
 * The object to apply for `md` (which must have been read from the server: the ownerReference needs its
 * uid). Throws what the transform throws; the caller reports it as TransformFailed.
 */
export function buildDesired(def: ProviderDefinition, md: ModelDeployment): KubeObject {
  const transformed = def.transform(md);
  const overrides = def.overridePatch ? def.overridePatch(md) : md.spec.provider?.overrides;
  const { status: _status, ...merged } = mergeOverrides(
    transformed as Record<string, unknown>,
    overrides,
  ) as KubeObject;
  const own = transformed.metadata ?? {};
  return {
    ...merged,
    apiVersion: def.upstream.apiVersion,
    kind: def.upstream.kind,
    metadata: {
      name: md.metadata.name,
      namespace: md.metadata.namespace,
      labels: upstreamLabels(md, own.labels),
      annotations: { ...(own.annotations ?? {}), [IDENTITY_ANNOTATION]: JSON.stringify(identityOf(md, def.name)) },
      ownerReferences: [controllerRef(md, { blockOwnerDeletion: true })],
    },
  };
}

/**
 * The objects a provider applies beside its upstream one (llm-d's Service), named as they are applied: from
 * the defaulted deployment. A definition that cannot build them for this spec has none to name.
 */
export function extraObjectsOf(def: Pick<ProviderDefinition, 'extraObjects'>, md: ModelDeployment): KubeObject[] {
  if (!def.extraObjects) return [];
  try {
    return def.extraObjects(defaultModelDeployment(md)).map((o) => ({
      ...o,
      metadata: { ...o.metadata, namespace: o.metadata.namespace ?? md.metadata.namespace },
    }));
  } catch {
    return [];
  }
}

/** is `upstream` owned by this ModelDeployment (any ownerReference with its uid)? */
export function ownedBy(upstream: KubeObject, md: Pick<ModelDeployment, 'metadata'>): boolean {
  const uid = md.metadata.uid;
  return !!uid && (upstream.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
}

/** `ns/name` of an object, as messages name it */
export function refOf(obj: { metadata: { name?: string; namespace?: string } }): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

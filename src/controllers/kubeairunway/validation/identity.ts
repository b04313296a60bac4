// Update semantics (docs/kubeairunway.md, "Provider lifecycle"): changing an identity field deletes and recreates the provider
// resource; every other field is a config field, updated in place. The webhook accepts both (docs/kubeairunway.md's
// semantics, not upstream's rejection) and warns about the downtime an identity change causes.
import type { ModelDeployment, ModelDeploymentSpec } from '../../../apis/kubeairunway/index.ts';
import { modelSourceOf, servingModeOf } from './defaults.ts';

export const IDENTITY_FIELDS = ['model.id', 'model.source', 'engine.type', 'provider.name', 'serving.mode'] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

/** config fields (spec paths), updated in place; listed so controllers and docs agree with docs/kubeairunway.md's table */
export const CONFIG_FIELDS = [
  'model.servedName',
  'scaling.replicas',
  'scaling.prefill',
  'scaling.decode',
  'env',
  'resources',
  'engine.args',
  'engine.extraArgs',
  'engine.contextLength',
  'engine.trustRemoteCode',
  'engine.enablePrefixCaching',
  'engine.enforceEager',
  'engine.image',
  'image',
  'secrets.huggingFaceToken',
  'podTemplate.metadata',
  'nodeSelector',
  'tolerations',
  'provider.overrides',
] as const;

export interface IdentityChange {
  field: IdentityField;
  from: string;
  to: string;
}

/** the provider in effect: the one the user named, else the one the core selected (sticky) */
function effectiveProvider(md: Pick<ModelDeployment, 'spec' | 'status'>): string {
  return md.spec?.provider?.name || md.status?.provider?.name || '';
}

function values(spec: ModelDeploymentSpec | undefined): Record<Exclude<IdentityField, 'provider.name'>, string> {
  return {
    'model.id': spec?.model?.id ?? '',
    'model.source': spec ? modelSourceOf(spec) : 'huggingface',
    'engine.type': spec?.engine?.type ?? '',
    'serving.mode': spec ? servingModeOf(spec) : 'aggregated',
  };
}

/**
 * The identity fields that differ between `old` and `next`, with defaults applied (absent source is
 * huggingface, absent mode is aggregated). engine.type counts only when both sides name one. For
 * provider.name the old value is the provider in effect (spec, else status), and clearing spec.provider.name
 * is not a change: the selected provider is sticky.
 */
export function identityChanges(
  old: Pick<ModelDeployment, 'spec' | 'status'>,
  next: Pick<ModelDeployment, 'spec' | 'status'>,
): IdentityChange[] {
  const before = values(old.spec);
  const after = values(next.spec);
  const out: IdentityChange[] = [];
  for (const field of IDENTITY_FIELDS) {
    if (field === 'provider.name') {
      const from = effectiveProvider(old);
      const to = next.spec?.provider?.name ?? '';
      if (from && to && from !== to) out.push({ field, from, to });
      continue;
    }
    const from = before[field];
    const to = after[field];
    if (from === to) continue;
    if (field === 'engine.type' && (!from || !to)) continue;
    out.push({ field, from, to });
  }
  return out;
}

export function identityChangeWarning(c: IdentityChange): string {
  return `spec.${c.field} changed from "${c.from}" to "${c.to}": the provider resource will be deleted and recreated (brief downtime)`;
}

// The sync half of the reconcile, pure: from the (defaulted) deployment and what the cache holds for its
// upstream object to one thing to do. Order as upstream's skeleton: compatibility, then the overrides,
// then the transform, then the object already there (not ours → conflict; going away → wait; built
// from other identity values → delete and recreate), else apply.
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import type { KubeObject } from '../../../kube/index.ts';
import { checkProviderCompatibility, type IdentityChange, validateProviderOverrides } from '../validation/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { buildDesired, describeIdentityChanges, identityChangesSince, ownedBy, refOf } from './desired.ts';
import type { UpstreamView } from './lifecycle.ts';

export type SyncPlan =
  | { kind: 'incompatible'; messages: string[] }
  | { kind: 'invalidOverrides'; messages: string[]; warnings: string[] }
  | { kind: 'transformFailed'; message: string; warnings: string[] }
  | { kind: 'crdMissing'; message: string; warnings: string[] }
  | { kind: 'conflict'; message: string; warnings: string[] }
  | { kind: 'waitForDeletion'; object: KubeObject; message: string; warnings: string[] }
  | { kind: 'recreate'; object: KubeObject; changes: IdentityChange[]; message: string; warnings: string[] }
  | { kind: 'apply'; desired: KubeObject; live: KubeObject | undefined; warnings: string[] };

export function conflictMessage(md: ModelDeployment): string {
  return `resource ${refOf(md)} exists but is not managed by this ModelDeployment`;
}

export function crdMissingMessage(def: Pick<ProviderDefinition, 'displayName' | 'upstream' | 'upstreamResource'>): string {
  const group = def.upstream.apiVersion.split('/')[0];
  return `${def.displayName}'s ${def.upstream.kind} CRD (${def.upstreamResource}.${group}, ${def.upstream.apiVersion}) is not installed in the cluster; waiting for it`;
}

export function recreateMessage(kind: string, md: ModelDeployment, changes: readonly IdentityChange[]): string {
  return `${describeIdentityChanges(changes)}: deleting and recreating ${kind} ${refOf(md)}`;
}

export function planSync(def: ProviderDefinition, md: ModelDeployment, upstream: UpstreamView): SyncPlan {
  const incompatible = checkProviderCompatibility(def.name, md.spec);
  if (incompatible.length > 0) return { kind: 'incompatible', messages: incompatible };

  const overrides = validateProviderOverrides(def.name, md.spec.provider?.overrides);
  const warnings = overrides.warnings;
  if (overrides.errors.length > 0) return { kind: 'invalidOverrides', messages: overrides.errors.map((e) => e.message), warnings };

  let desired: KubeObject;
  try {
    desired = buildDesired(def, md);
  } catch (err) {
    const message = `cannot build the ${def.upstream.kind} for ${refOf(md)}: ${err instanceof Error ? err.message : String(err)}`;
    return { kind: 'transformFailed', message, warnings };
  }

  if (upstream.state === 'crdMissing') return { kind: 'crdMissing', message: crdMissingMessage(def), warnings };
  if (upstream.state === 'absent') return { kind: 'apply', desired, live: undefined, warnings };
  const live = upstream.object;
  if (!ownedBy(live, md)) return { kind: 'conflict', message: conflictMessage(md), warnings };
  if (live.metadata.deletionTimestamp) {
    return { kind: 'waitForDeletion', object: live, message: `waiting for ${def.upstream.kind} ${refOf(live)} to finish deleting before creating it again`, warnings };
  }
  const changes = identityChangesSince(live, md);
  if (changes.length > 0) return { kind: 'recreate', object: live, changes, message: recreateMessage(def.upstream.kind, md, changes), warnings };
  return { kind: 'apply', desired, live, warnings };
}

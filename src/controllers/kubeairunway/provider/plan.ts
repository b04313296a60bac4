// The sync half of the reconcile, pure: from the (defaulted) deployment and what the cache holds for its
// upstream object to one thing to do. First the core's validation again (the webhook may have been down
// when an invalid update was stored: nothing invalid may reach the upstream object, and the deployment is
// Pending with the validation message until it passes), then as upstream's skeleton: compatibility, the
// overrides, the transform, then the object already there (not ours → conflict; going away → wait; built
// from other identity values → delete and recreate), else apply.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import {
  admissionMessage,
  checkProviderCompatibility,
  type IdentityChange,
  validateModelDeployment,
  validateProviderOverrides,
} from '../validation/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { buildDesired, describeIdentityChanges, identityChangesSince, ownedBy, refOf } from './desired.ts';
import type { UpstreamView } from './lifecycle.ts';

export type SyncPlan =
  | { kind: 'invalid'; message: string }
  | { kind: 'incompatible'; messages: string[] }
  | { kind: 'invalidOverrides'; messages: string[]; warnings: string[] }
  | { kind: 'transformFailed'; message: string; warnings: string[] }
  | { kind: 'crdMissing'; message: string; warnings: string[] }
  | { kind: 'conflict'; message: string; warnings: string[] }
  /** `recreating`: it is going away because its identity fields changed (our own recreate) */
  | { kind: 'waitForDeletion'; object: KubeObject; message: string; recreating: boolean; warnings: string[] }
  | { kind: 'recreate'; object: KubeObject; changes: IdentityChange[]; message: string; warnings: string[] }
  | { kind: 'apply'; desired: KubeObject; live: KubeObject | undefined; warnings: string[] };

export function conflictMessage(md: ModelDeployment): string {
  return `resource ${refOf(md)} exists but is not managed by this ModelDeployment`;
}

export function crdMissingMessage(
  def: Pick<ProviderDefinition, 'displayName' | 'upstream' | 'upstreamResource'>,
): string {
  const group = def.upstream.apiVersion.split('/')[0];
  return `${def.displayName}'s ${def.upstream.kind} CRD (${def.upstreamResource}.${group}, ${def.upstream.apiVersion}) is not installed in the cluster; waiting for it`;
}

export function recreateMessage(kind: string, md: ModelDeployment, changes: readonly IdentityChange[]): string {
  return `${describeIdentityChanges(changes)}: deleting and recreating ${kind} ${refOf(md)}`;
}

/**
 * The half of the sync that depends on the deployment alone (validation, compatibility, overrides, the
 * transform): either a plan that needs no upstream object, or the object to apply. The engine observes again
 * after its apply (docs/controllers.md), with the same deployment, so the caller may reuse this per object.
 */
export type PreparedSync =
  | Extract<SyncPlan, { kind: 'invalid' | 'incompatible' | 'invalidOverrides' | 'transformFailed' }>
  | { kind: 'ready'; desired: KubeObject; warnings: string[] };

export function prepareSync(def: ProviderDefinition, md: ModelDeployment): PreparedSync {
  // exactly the core's (and the webhook's) validation; this provider's typed overrides come next
  const validation = validateModelDeployment(md);
  if (validation.errors.length > 0) return { kind: 'invalid', message: admissionMessage(validation.errors) };
  const incompatible = checkProviderCompatibility(def.name, md.spec);
  if (incompatible.length > 0) return { kind: 'incompatible', messages: incompatible };

  const overrides = validateProviderOverrides(def.name, md.spec.provider?.overrides);
  const warnings = overrides.warnings;
  if (overrides.errors.length > 0)
    return { kind: 'invalidOverrides', messages: overrides.errors.map((e) => e.message), warnings };

  try {
    return { kind: 'ready', desired: buildDesired(def, md), warnings };
  } catch (err) {
    const message = `cannot build the ${def.upstream.kind} for ${refOf(md)}: ${err instanceof Error ? err.message : String(err)}`;
    return { kind: 'transformFailed', message, warnings };
  }
}

/** `prepared`: prepareSync's answer for this same `md`, when the caller already has it */
export function planSync(
  def: ProviderDefinition,
  md: ModelDeployment,
  upstream: UpstreamView,
  prepared: PreparedSync = prepareSync(def, md),
): SyncPlan {
  if (prepared.kind !== 'ready') return prepared;
  const { desired, warnings } = prepared;

  if (upstream.state === 'crdMissing') return { kind: 'crdMissing', message: crdMissingMessage(def), warnings };
  if (upstream.state === 'absent') return { kind: 'apply', desired, live: undefined, warnings };
  const live = upstream.object;
  if (!ownedBy(live, md)) return { kind: 'conflict', message: conflictMessage(md), warnings };
  const changes = identityChangesSince(live, md);
  if (live.metadata.deletionTimestamp) {
    if (changes.length > 0)
      return {
        kind: 'waitForDeletion',
        object: live,
        message: recreateMessage(def.upstream.kind, md, changes),
        recreating: true,
        warnings,
      };
    return {
      kind: 'waitForDeletion',
      object: live,
      message: `waiting for ${def.upstream.kind} ${refOf(live)} to finish deleting before creating it again`,
      recreating: false,
      warnings,
    };
  }
  if (changes.length > 0)
    return {
      kind: 'recreate',
      object: live,
      changes,
      message: recreateMessage(def.upstream.kind, md, changes),
      warnings,
    };
  return { kind: 'apply', desired, live, warnings };
}

// The Secrets AIM objects name, watched one by one (docs/aim.md, "Secrets"): a pull Secret or a credential
// an object references is created or changed → that object is reconciled at once (a model refused by the
// registry reads its image again, a download refused for credentials starts again). Only the Secrets some
// AIM object names are watched, each by a metadata-only watch pinned to its name: the operator never lists
// Secrets, never holds their data in a cache, and never hears of a Secret nobody references.
import { Secrets } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { ReferencedObjectWatch, type ReferencingSource } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject, ObjectKey } from '@modelplane/runtime/meta';

interface SecretNamingSpec {
  imagePullSecrets?: ReadonlyArray<{ name?: string }>;
  env?: ReadonlyArray<{ valueFrom?: { secretKeyRef?: { name?: string } } }>;
}

/**
 * The Secrets `obj` names in spec.imagePullSecrets and spec.env[].valueFrom.secretKeyRef: in its own
 * namespace, or the operator's for cluster-scoped kinds (where their pull secrets live).
 */
export function referencedSecrets(obj: KubeObject, operatorNamespace: string): ObjectKey[] {
  const spec = (obj as { spec?: SecretNamingSpec }).spec;
  const namespace = obj.metadata.namespace || operatorNamespace;
  const names = [
    ...(spec?.imagePullSecrets ?? []).map((s) => s?.name),
    ...(spec?.env ?? []).map((e) => e?.valueFrom?.secretKeyRef?.name),
  ];
  return names.filter((n): n is string => typeof n === 'string' && n !== '').map((name) => ({ namespace, name }));
}

/** one AIM kind whose objects may name Secrets, and the controller that reconciles them */
export interface SecretReferencingKind {
  kind: KindRef<any>;
  controller: Pick<Controller, 'enqueueChange'>;
}

/** watches the Secrets the given kinds' objects name, for as long as the manager leads */
export function watchReferencedSecrets(
  mgr: Manager,
  operatorNamespace: string,
  kinds: readonly SecretReferencingKind[],
): ReferencedObjectWatch {
  const sources: ReferencingSource[] = kinds.map((k) => ({
    kind: k.kind,
    controller: k.controller,
    references: (obj) => referencedSecrets(obj, operatorNamespace),
  }));
  const watch = new ReferencedObjectWatch({
    name: 'aim-secret-references',
    kind: Secrets,
    client: mgr.client,
    cache: mgr.cache,
    sources,
    logger: mgr.log.child({ component: 'aim-secret-references' }),
    metrics: mgr.metrics,
  });
  mgr.add(watch);
  return watch;
}

// The Secrets AIM objects name, watched one by one (docs/aim.md, "Secrets"): a pull Secret or a credential
// an object references is created or changed → that object is reconciled at once (a model refused by the
// registry reads its image again, a download refused for credentials starts again). Only the Secrets some
// AIM object names are watched, each by a metadata-only watch pinned to its name: the operator never lists
// Secrets, never holds their data in a cache, and never hears of a Secret nobody references.
import { Secrets } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { ReferencedObjectWatch, type ReferencingSource } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef } from '@modelplane/runtime/meta';
import { referencedSecrets, type SecretVersionSource } from './secret-names.ts';

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

/**
 * the versions the watch knows, to a controller registered before the watch exists (the watch needs the
 * controllers it feeds): unknown until bound
 */
export class LateSecretVersions implements SecretVersionSource {
  private source: SecretVersionSource | undefined;

  bind(source: SecretVersionSource): void {
    this.source = source;
  }

  resourceVersion(namespace: string, name: string): string | undefined {
    return this.source?.resourceVersion(namespace, name);
  }
}

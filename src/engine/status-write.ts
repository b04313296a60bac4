// The one way a controller writes status: server-side apply on the status subresource, with its own field
// manager, of exactly the fields it owns (owned-fields.ts), only when they changed, and with the object's
// resourceVersion as a precondition so that a status computed from a stale read loses instead of
// overwriting a newer one. Every controller goes through writeOwnedStatus, the pipeline and the
// KubeAIRunway lifecycle steps alike (docs/controllers.md, "7. Status ownership").

import { isConflict, isNotFound, type KubeClient } from '@modelplane/runtime/client';
import { deepEqual, type KubeObject } from '@modelplane/runtime/meta';
import { ownedStatus } from './owned-fields.ts';

/**
 * - `written`: the server took it
 * - `unchanged`: nothing we own differs; no request was made
 * - `conflict`: the object changed since it was read (409); reconcile again from the newer object
 * - `gone`: the object was deleted meanwhile (404); its deletion event ends the work, a retry would only 404
 */
export type StatusWriteResult = 'written' | 'unchanged' | 'conflict' | 'gone';

export interface StatusWriteOptions {
  fieldManager: string;
  /** what we owned before (default: extracted from `object`'s managedFields) */
  before?: Record<string, unknown>;
  /**
   * send `object`'s resourceVersion as a precondition (default true). Only a writer that is the sole
   * writer of the whole status may turn it off (a provider's own InferenceProviderConfig).
   */
  precondition?: boolean;
}

/** writes `status` as `fieldManager`'s part of `object`'s status; other errors (5xx, 403, …) are thrown */
export async function writeOwnedStatus(
  client: Pick<KubeClient, 'applyStatus'>,
  object: KubeObject,
  status: Record<string, unknown>,
  opts: StatusWriteOptions,
): Promise<StatusWriteResult> {
  const before = opts.before ?? ownedStatus(object, opts.fieldManager);
  if (deepEqual(before, status)) return 'unchanged';
  const { name, namespace, resourceVersion } = object.metadata;
  const metadata = {
    name,
    ...(namespace ? { namespace } : {}),
    ...(resourceVersion && opts.precondition !== false ? { resourceVersion } : {}),
  };
  try {
    await client.applyStatus(
      { apiVersion: object.apiVersion, kind: object.kind, metadata, status },
      { fieldManager: opts.fieldManager, force: true },
    );
    return 'written';
  } catch (err) {
    if (isConflict(err)) return 'conflict';
    if (isNotFound(err)) return 'gone';
    throw err;
  }
}

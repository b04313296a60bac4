// One ConversionReview round trip for a CRD with `spec.conversion.strategy: Webhook`, with the checks
// apiextensions-apiserver makes on the answer (review kind, uid, result, count, groupVersion, kind, name,
// namespace, uid) and its metadata rule: only labels and annotations may change, everything else in
// metadata is restored from the original. Failures carry kube's texts, e.g.
//   conversion webhook for example.com/v1, Kind=Widget failed: Post "https://…/convert?timeout=30s": …
import { randomUUID } from 'node:crypto';
import {
  postJson,
  type ResolveDeps,
  resolveTarget,
  WebhookCallError,
  type WebhookClientConfig,
} from '../admission/webhook-client.ts';
import type { KubeObject } from '../types.ts';

/** apiextensions-apiserver calls conversion webhooks with client-go's default 30 s timeout */
export const CONVERSION_TIMEOUT_MS = 30_000;

export interface ConversionWebhookConfig {
  clientConfig?: WebhookClientConfig;
  conversionReviewVersions?: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's GroupVersionKind String(): `group/version, Kind=Kind` */
export function gvkString(apiVersion: string, kind: string): string {
  return `${apiVersion}, Kind=${kind}`;
}

/**
 * Sends `objects` (all of one kind, none already in `desiredAPIVersion`) to the webhook and returns them
 * converted, in order. Throws Error with kube's message; the caller decides how it reaches the client.
 */
export async function callConversionWebhook(
  cfg: ConversionWebhookConfig | undefined,
  objects: KubeObject[],
  desiredAPIVersion: string,
  deps: ResolveDeps,
): Promise<KubeObject[]> {
  const first = objects[0]!;
  const gvk = gvkString(first.apiVersion, first.kind);
  const single = objects.length === 1;
  const reviewVersion = (cfg?.conversionReviewVersions ?? []).find((v) => v === 'v1' || v === 'v1beta1');
  if (!reviewVersion) throw new Error(`conversion webhook for ${gvk} failed: no supported conversion review versions`);
  const uid = randomUUID();
  let answer: Obj;
  try {
    const target = resolveTarget(cfg?.clientConfig ?? {}, CONVERSION_TIMEOUT_MS, deps);
    answer = await postJson(
      target,
      {
        apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
        kind: 'ConversionReview',
        request: { uid, desiredAPIVersion, objects },
      },
      CONVERSION_TIMEOUT_MS,
    );
  } catch (e) {
    if (e instanceof WebhookCallError) throw new Error(`conversion webhook for ${gvk} failed: ${e.message}`);
    throw e;
  }
  const converted = checkReview(answer, reviewVersion, uid, gvk);
  if (converted.length !== objects.length) {
    throw new Error(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${objects.length}`);
  }
  const gv = desiredAPIVersion;
  return objects.map((original, i) => {
    const where = single ? 'invalid object at index 0' : `invalid converted object at index ${i}`;
    const out = converted[i];
    if (!isObj(out))
      throw new Error(
        `conversion webhook for ${gvk} returned ${where}: Object 'Kind' is missing in '${JSON.stringify(out)}'`,
      );
    if (out.apiVersion !== gv)
      throw new Error(
        `conversion webhook for ${gvk} returned ${where}: invalid groupVersion (expected ${gv}, received ${String(out.apiVersion ?? '')})`,
      );
    if (out.kind !== original.kind)
      throw new Error(
        `conversion webhook for ${gvk} returned ${where}: invalid kind (expected ${original.kind}, received ${String(out.kind ?? '')})`,
      );
    const mismatch = sameIdentity(original, out);
    if (mismatch)
      throw new Error(
        `conversion webhook for ${gvk} returned ${single ? 'invalid object' : `invalid converted object at index ${i}`}: ${mismatch}`,
      );
    const metaError = restoreMetadata(original, out);
    if (metaError)
      throw new Error(
        `conversion webhook for ${gvk} returned invalid metadata${single ? '' : ` in object at index ${i}`}: ${metaError}`,
      );
    return out as KubeObject;
  });
}

function checkReview(answer: Obj, reviewVersion: string, uid: string, gvk: string): unknown[] {
  const fail = (why: string) => new Error(`conversion webhook for ${gvk} failed: ${why}`);
  if (
    reviewVersion === 'v1' &&
    (answer.apiVersion !== 'apiextensions.k8s.io/v1' || answer.kind !== 'ConversionReview')
  ) {
    throw fail(
      `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvkString(String(answer.apiVersion ?? ''), String(answer.kind ?? ''))}`,
    );
  }
  const response = answer.response;
  if (!isObj(response)) throw fail('no response provided');
  if (reviewVersion === 'v1' && response.uid !== uid)
    throw fail(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  const result = isObj(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw fail(result.message);
    throw fail(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

function sameIdentity(a: KubeObject, b: Obj): string | undefined {
  const m = isObj(b.metadata) ? b.metadata : {};
  const pairs: Array<[string, unknown, unknown]> = [
    ['name', a.metadata.name ?? '', m.name ?? ''],
    ['namespace', a.metadata.namespace ?? '', m.namespace ?? ''],
    ['UID', a.metadata.uid ?? '', m.uid ?? ''],
  ];
  for (const [field, want, got] of pairs)
    if (want !== got) return `must have the same ${field}: ${String(want)} != ${String(got)}`;
  return undefined;
}

/** Puts the original metadata back on `out`, keeping the labels and annotations the webhook returned. */
function restoreMetadata(original: KubeObject, out: Obj): string | undefined {
  if (!('metadata' in out)) return 'missing metadata in converted object';
  if (!isObj(out.metadata)) return `invalid metadata of type ${typeof out.metadata} in converted object`;
  const answered = out.metadata;
  const meta: Obj = structuredClone(original.metadata) as Obj;
  for (const field of ['labels', 'annotations'] as const) {
    const v = answered[field];
    if (v === undefined || v === null) {
      delete meta[field];
      continue;
    }
    if (!isObj(v))
      return `invalid metadata.${field} of type ${Array.isArray(v) ? 'array' : typeof v} in converted object`;
    for (const [k, val] of Object.entries(v)) {
      if (typeof val !== 'string')
        return `metadata.${field}[${k}] must be a string, but is ${typeof val} in converted object`;
    }
    meta[field] = v;
  }
  out.metadata = meta;
  return undefined;
}

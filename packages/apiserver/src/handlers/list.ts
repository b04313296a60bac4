// LIST: namespace scoping, label and field selectors, limit/continue over a consistent snapshot, and
// the response shapes (List, Table, PartialObjectMetadataList).
import { streamJsonList } from '../http/json-list-stream.ts';
import { writeNegotiated } from '../http/respond.ts';
import type { KubeObject } from '../types.ts';
import { decodeListOptions, rvParam, validateListOptions } from './params.ts';
import { namespaceOf, type ResourceRequest } from './request.ts';
import { compileSelectors } from './selectors.ts';
import { convertList } from './table.ts';

/** Objects matching the request's namespace and selectors, in the request's version. */
export async function selectObjects(
  r: ResourceRequest,
  ns: string | undefined,
  matches = compileSelectors(r.rt, r.info.version, r.query),
): Promise<KubeObject[]> {
  const converted = await r.core.convertOutMany(r.rt, r.core.store.list(r.rt.storageKey, ns), r.info.version);
  return converted.filter((obj) => matches(obj));
}

export async function listObjects(r: ResourceRequest): Promise<number> {
  // kube-apiserver's order: numbers and booleans, selectors, then the options' validation
  const opts = decodeListOptions(r.query);
  const matches = compileSelectors(r.rt, r.info.version, r.query);
  validateListOptions(r.query, opts, false);
  // (a negative limit is no limit, as etcd sees it)
  const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : undefined;
  const cont = r.query.get('continue') ?? undefined;
  const requested = rvParam(r.query);
  // an exact list (Exact, or a first page at a resourceVersion other than "0") is read from storage at
  // that revision: 410 once compacted. Otherwise the current state is returned, which is not older.
  if (requested && (opts.resourceVersionMatch === 'Exact' || (limit && !opts.resourceVersionMatch)))
    r.core.store.checkListableAt(requested);
  const rv = r.core.store.currentRv();
  const items = r.core.paginator.needsCurrentItems(cont || undefined)
    ? await selectObjects(r, namespaceOf(r), matches)
    : [];
  const page = r.core.paginator.page(items, rv, limit, cont || undefined);
  const listMeta: Record<string, unknown> = { resourceVersion: String(page.rv) };
  if (page.continue) {
    listMeta.continue = page.continue;
    if (!r.query.get('labelSelector') && !r.query.get('fieldSelector')) listMeta.remainingItemCount = page.remaining;
  }
  if (r.out.convert) {
    writeNegotiated(r.res, r.out, 200, convertList(r, page.items, listMeta));
    return 200;
  }
  const gv = r.rt.group ? `${r.rt.group}/${r.info.version}` : r.info.version;
  const head = { kind: r.rt.listKind, apiVersion: gv, metadata: listMeta };
  // compact JSON is written in pieces, each stored object's text serialised once and shared (http/object-json.ts)
  if (r.out.format === 'json' && !r.out.pretty) streamJsonList(r.res, head, 'items', page.items);
  else writeNegotiated(r.res, r.out, 200, { ...head, items: page.items });
  return 200;
}

// LIST: namespace scoping, label and field selectors, limit/continue over a consistent snapshot, and
// the response shapes (List, Table, PartialObjectMetadataList).
import { errors } from '../errors.ts';
import { withJsonItems } from '../http/object-json.ts';
import { writeJson } from '../http/respond.ts';
import { compileSelectors } from './selectors.ts';
import type { KubeObject } from '../types.ts';
import { intParam, rvParam } from './params.ts';
import { type ResourceRequest, namespaceOf } from './resources.ts';
import { negotiateShape, partialMetadata, table } from './table.ts';

/** Objects matching the request's namespace and selectors, in the request's version. */
export async function selectObjects(r: ResourceRequest, ns: string | undefined): Promise<KubeObject[]> {
  const matches = compileSelectors(r.rt, r.info.version, r.query);
  const converted = await r.core.convertOutMany(r.rt, r.core.store.list(r.rt.storageKey, ns), r.info.version);
  return converted.filter((obj) => matches(obj));
}

export async function listObjects(r: ResourceRequest): Promise<number> {
  const limit = intParam(r.query, 'limit');
  if (limit !== undefined && limit < 0) throw errors.badRequest(`limit must be non-negative, got ${limit}`);
  rvParam(r.query);
  const cont = r.query.get('continue') ?? undefined;
  const rv = r.core.store.currentRv();
  const items = cont ? [] : await selectObjects(r, namespaceOf(r));
  const page = r.core.paginator.page(items, rv, limit, cont || undefined);
  const listMeta: Record<string, unknown> = { resourceVersion: String(page.rv) };
  if (page.continue) {
    listMeta.continue = page.continue;
    if (!r.query.get('labelSelector') && !r.query.get('fieldSelector')) listMeta.remainingItemCount = page.remaining;
  }
  const shape = negotiateShape(r.req.headers.accept);
  let body: unknown;
  if (shape === 'table') {
    const include = (r.query.get('includeObject') ?? 'Metadata') as 'None' | 'Metadata' | 'Object';
    body = table(r.rt, r.info.version, page.items, include, listMeta);
  } else if (shape === 'partial') {
    body = { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: page.items.map(partialMetadata) };
  } else {
    const gv = r.rt.group ? `${r.rt.group}/${r.info.version}` : r.info.version;
    // each stored object's text is serialised once and shared (http/object-json.ts)
    body = withJsonItems({ kind: r.rt.listKind, apiVersion: gv, metadata: listMeta }, 'items', page.items);
  }
  writeJson(r.res, 200, body);
  return 200;
}


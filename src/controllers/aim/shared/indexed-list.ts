// Lists by a cache index when the reader is the informer cache (one map lookup), and by filtering a plain
// list with the same index function otherwise (tests, live readers): the answer is the same either way.

import { Cache, type IndexFunc } from '@modelplane/runtime/cache';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import type { ObjectReader } from '../../../engine/index.ts';

export async function listIndexed<T extends KubeObject>(
  reader: ObjectReader,
  kind: KindRef<T>,
  index: { name: string; fn: IndexFunc; value: string },
  namespace?: string,
): Promise<T[]> {
  if (reader instanceof Cache)
    return reader.list(kind, { index: { name: index.name, value: index.value }, ...(namespace ? { namespace } : {}) });
  return (await reader.list(kind, namespace ? { namespace } : {})).filter((o) =>
    (index.fn(o) as string[]).includes(index.value),
  );
}

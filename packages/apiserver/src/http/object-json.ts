// The JSON text of stored objects, computed once and shared: a watch event goes to every watcher of
// its resource and a list repeats every object it holds, so serialising each stored object once instead
// of once per watcher and per list is most of their cost. Only frozen objects are cached: stored objects
// are frozen (storage/immutable.ts), so their text can never go stale. Everything else is serialised
// afresh each time.

const texts = new WeakMap<object, string>();

/** JSON.stringify(obj), remembered for frozen (stored) objects. */
export function objectJson(obj: object): string {
  let text = texts.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    if (Object.isFrozen(obj)) texts.set(obj, text);
  }
  return text;
}

/** JSON.stringify(obj), reusing the remembered text when there is one but never adding to the cache. */
export function objectJsonIfCached(obj: object): string {
  return texts.get(obj) ?? JSON.stringify(obj);
}

/**
 * JSON.stringify of `{...head, [key]: items}` with each item's text from objectJson: the same bytes,
 * without serialising cached items again. `head` must have at least one property.
 */
export function withJsonItems(head: Record<string, unknown>, key: string, items: object[]): string {
  const open = JSON.stringify(head);
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) parts[i] = objectJson(items[i]!);
  return `${open.slice(0, -1)},${JSON.stringify(key)}:[${parts.join(',')}]}`;
}

// The JSON text of stored objects, computed once and shared: a watch event goes to every watcher of
// its resource and a list repeats every object it holds (http/json-list-stream.ts), so serialising each stored object once instead
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

/** the last watch event encoded: every watcher of a resource gets the same event in one synchronous fan-out */
let lastEvent: { obj: object; type: string; bytes: Buffer } | undefined;

/**
 * A watch event's line, `{"type":…,"object":…}\n`, as bytes, shared by every watcher it goes to: the fan-out
 * encodes each event once instead of once per watcher. Only the last event is kept (the fan-out of one
 * commit runs without interruption), so nothing accumulates.
 */
export function watchEventJson(type: string, obj: object): Buffer {
  if (lastEvent?.obj === obj && lastEvent.type === type) return lastEvent.bytes;
  const bytes = Buffer.from(`{"type":${JSON.stringify(type)},"object":${objectJson(obj)}}\n`);
  // an object that is not stored (frozen) may change before the next watcher: never shared
  if (Object.isFrozen(obj)) lastEvent = { obj, type, bytes };
  return bytes;
}

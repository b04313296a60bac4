// The informer cache: list-watch, informers, indexed stores and the cache controllers read from.

export { Cache, type CacheListOptions, type CacheOptions, type InformerSpec } from './cache.ts';
export { type EventHandler, Informer, type InformerOptions, type ListWatchTuning } from './informer.ts';
export { ListWatch, type ListWatchHandler, type ListWatchOptions } from './listwatch.ts';
export { builtinIndexers, INDEX_NAMESPACE, INDEX_OWNER, type IndexFunc, Store, type StoreChange } from './store.ts';

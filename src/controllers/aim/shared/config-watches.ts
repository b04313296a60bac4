// Which consumers a runtime-config change concerns, answered from a cache index instead of a scan. Every
// consumer (AIMService, AIMModel, AIMClusterModel, …) is filed under the two configs it resolves: the
// AIMRuntimeConfig `<lookup namespace>/<name>` (its own namespace, or the operator namespace for
// cluster-scoped consumers) and the AIMClusterRuntimeConfig `<name>`, where name is runtimeConfigName or
// `default`. A config event then enqueues exactly the consumers filed under it, which is what makes a
// consumer with ConfigNotFound recover the moment its config is created.

import type { IndexFunc } from '@modelplane/runtime/cache';
import type { ControllerBuilder } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KindRef, type KubeObject, keyOf } from '@modelplane/runtime/meta';
import { runtimeConfigLookupNamespace, runtimeConfigNameFor } from '../../../common/runtime-config/index.ts';
import { AIMClusterRuntimeConfigs, AIMRuntimeConfigs, type RuntimeConfigConsumer } from './kinds.ts';

export const RUNTIME_CONFIG_INDEX = 'aim.eai.amd.com/runtime-config';

/** the index value of the namespaced config `namespace/name` */
export function namespacedConfigKey(namespace: string, name: string): string {
  return `AIMRuntimeConfig:${namespace}/${name}`;
}

/** the index value of the cluster config `name` */
export function clusterConfigKey(name: string): string {
  return `AIMClusterRuntimeConfig:${name}`;
}

/** the index values of one consumer: the two configs it resolves */
export function runtimeConfigKeys(consumer: KubeObject, operatorNamespace: string): string[] {
  const name = runtimeConfigNameFor((consumer as RuntimeConfigConsumer).spec?.runtimeConfigName);
  const namespace = runtimeConfigLookupNamespace(consumer.metadata.namespace, operatorNamespace);
  return [namespacedConfigKey(namespace, name), clusterConfigKey(name)];
}

// One function per operator namespace: the cache refuses a second, different function under the same
// index name, and several controllers may index the same consumer kind.
const indexFuncs = new Map<string, IndexFunc>();

export function runtimeConfigIndex(operatorNamespace: string): IndexFunc {
  let fn = indexFuncs.get(operatorNamespace);
  if (!fn) {
    fn = (obj) => runtimeConfigKeys(obj, operatorNamespace);
    indexFuncs.set(operatorNamespace, fn);
  }
  return fn;
}

/** the index value a config object is looked up under */
export function configKeyOf(config: KubeObject): string {
  const name = config.metadata.name ?? '';
  return config.metadata.namespace ? namespacedConfigKey(config.metadata.namespace, name) : clusterConfigKey(name);
}

/**
 * Indexes `consumers` by the configs they resolve and adds watches on both config kinds to `builder`, so
 * a config create/update/delete enqueues the consumers that resolve it (and nothing else).
 */
export async function watchRuntimeConfigs<T extends RuntimeConfigConsumer>(
  mgr: Manager,
  builder: ControllerBuilder,
  consumers: KindRef<T>,
  operatorNamespace: string,
): Promise<ControllerBuilder> {
  await mgr.cache.indexField(consumers, RUNTIME_CONFIG_INDEX, runtimeConfigIndex(operatorNamespace));
  const informer = await mgr.cache.informer(consumers);
  const consumersOf = (config: KubeObject) =>
    informer.store.byIndex(RUNTIME_CONFIG_INDEX, configKeyOf(config)).map(keyOf);
  return builder.watches(AIMRuntimeConfigs, consumersOf).watches(AIMClusterRuntimeConfigs, consumersOf);
}

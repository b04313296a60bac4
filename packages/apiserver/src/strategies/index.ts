// Chooses the write strategy for a resource type; custom-resource strategies are cached per CRD
// identity so a changed CRD gets freshly compiled validators.
import type { StrategyProvider, TypeStrategy } from '../objects/strategy.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { builtinStrategy } from './builtin.ts';
import { ClusterIpAllocator } from './cluster-ip.ts';
import { customStrategy } from './custom.ts';

export function createStrategyProvider(): StrategyProvider {
  const ips = new ClusterIpAllocator();
  const cache = new WeakMap<ResourceType, TypeStrategy>();
  return {
    for(rt) {
      let s = cache.get(rt);
      if (!s) {
        s = rt.builtin ? builtinStrategy(rt, ips) : customStrategy(rt);
        cache.set(rt, s);
      }
      return s;
    },
  };
}

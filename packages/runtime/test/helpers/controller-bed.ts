// The shared set-up of the controller tests: a stub API server with Widgets, a client, and a fresh cache
// (empty of widgets and ConfigMaps) before each test. The fields are filled in by node:test hooks, so a
// suite reads them inside its tests.
import { after, before, beforeEach } from 'node:test';
import { Cache } from '../../src/cache/cache.ts';
import { KubeClient } from '../../src/client/client.ts';
import { Logger } from '../../src/log.ts';
import { type KubeObject, kindRef } from '../../src/meta/types.ts';
import { RuntimeMetrics } from '../../src/metrics.ts';
import { StubApiServer } from './stub-apiserver.ts';

export const Widgets = kindRef<KubeObject & { spec?: { size?: number } }>('test.modelplane.io/v1', 'Widget');

export function widget(name: string, size = 1, ns = 'ns') {
  return { apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name, namespace: ns }, spec: { size } };
}

export interface ControllerBed {
  stub: StubApiServer;
  client: KubeClient;
  cache: Cache;
  metrics: RuntimeMetrics;
  quiet: Logger;
}

/** Registers the hooks in the calling suite; call it at the top of a describe(). */
export function controllerBed(): ControllerBed {
  const bed = { quiet: new Logger({}, 'silent') } as ControllerBed;
  before(async () => {
    bed.stub = await new StubApiServer().start();
    bed.client = await KubeClient.create(bed.stub.kubeconfig());
  });
  after(async () => {
    await bed.cache?.stop();
    bed.client.close();
    await bed.stub.close();
  });
  beforeEach(async () => {
    await bed.cache?.stop();
    for (const o of bed.stub.list('widgets'))
      bed.stub.remove('test.modelplane.io/v1', 'Widget', o.metadata.name, o.metadata.namespace);
    for (const o of bed.stub.list('configmaps'))
      bed.stub.remove('v1', 'ConfigMap', o.metadata.name, o.metadata.namespace);
    bed.metrics = new RuntimeMetrics();
    bed.cache = new Cache({ client: bed.client, metrics: bed.metrics, logger: bed.quiet });
    bed.cache.start();
  });
  return bed;
}

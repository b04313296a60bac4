// The runtime's own test fixtures: the test cluster of @modelplane/runtime/testing with the Widget CRD.

import { z } from 'zod';
import type { CustomResourceDefinition } from '../../src/client/kinds.ts';
import { crdFromZod } from '../../src/crd/gen.ts';
import { type KubeObject, kindRef } from '../../src/meta/types.ts';
import { startCluster as startTestCluster, type TestCluster } from '../../src/testing.ts';

export { ensureNamespace, type TestCluster } from '../../src/testing.ts';

export interface Widget extends KubeObject {
  spec?: { size?: number; note?: string };
  status?: { observedGeneration?: number; configMap?: string; ready?: boolean };
}

export const Widgets = kindRef<Widget>('test.modelplane.io/v1', 'Widget');

export const WIDGET_CRD: CustomResourceDefinition = crdFromZod({
  group: 'test.modelplane.io',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      specRequired: false,
      spec: z.object({ size: z.number().int().min(0).optional(), note: z.string().optional() }),
      status: z.object({
        observedGeneration: z.number().int().optional(),
        configMap: z.string().optional(),
        ready: z.boolean().optional(),
      }),
    },
  ],
});

/** `dataDir` (persistence across an in-place restart) is the embedded server's: it selects that backend */
export function startCluster(opts: { dataDir?: string; operatorUser?: string } = {}): Promise<TestCluster> {
  return startTestCluster({ ...opts, crds: [WIDGET_CRD] });
}

export function widget(name: string, namespace: string, size = 1): Widget {
  return { apiVersion: Widgets.apiVersion, kind: Widgets.kind, metadata: { name, namespace }, spec: { size } };
}

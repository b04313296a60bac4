// The sample controller of docs/controllers.md: a `Greeting` names a user's ConfigMap holding a
// `template` ("Hello, {name}!") and gets a child ConfigMap `<greeting>-rendered` with the rendered message.
// It shows every part of a controller on the engine: fetch (cache reads into FetchResults), a pure planner,
// component health with upstream/downstream dependencies, decorateStatus, and the thin wiring.

import { type ConfigMap, ConfigMaps } from '@modelplane/runtime/client';
import { type Controller, ItemExponentialRateLimiter } from '@modelplane/runtime/controller';
import { conditionListSchema, crdFromZod } from '@modelplane/runtime/crd';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef, objectKeyString } from '@modelplane/runtime/meta';
import { z } from 'zod';
import {
  type DomainReconciler,
  type EngineStatus,
  type FetchResult,
  fetch,
  invalidSpecError,
  Pipeline,
  type PipelineOptions,
  PlanResult,
  pipelineReconciler,
  staticLabels,
} from '../../../src/engine/index.ts';

export interface Greeting extends KubeObject {
  spec: { configMapName: string; name: string };
  status?: GreetingStatus;
}

export interface GreetingStatus extends EngineStatus {
  status?: string;
  renderedConfigMap?: string;
}

export const Greetings = kindRef<Greeting>('samples.modelplane.io/v1alpha1', 'Greeting');

/** what FetchRemoteState returns: every read, as data */
export interface GreetingFetch {
  /** the user's ConfigMap (upstream: the user must create it) */
  template: FetchResult<ConfigMap>;
  /** our child ConfigMap (downstream: we create it) */
  output: FetchResult<ConfigMap>;
}

export const renderedName = (g: Greeting) => `${g.metadata.name}-rendered`;

/** the planner: pure, from the object and observations to the desired child */
export function planGreeting(g: Greeting, obs: GreetingFetch): PlanResult {
  const plan = new PlanResult();
  const template = obs.template.ok() ? obs.template.value.data?.template : undefined;
  if (template === undefined) return plan; // health reports why; nothing to build yet
  plan.apply({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: renderedName(g),
      namespace: g.metadata.namespace,
      labels: { 'samples.modelplane.io/greeting': g.metadata.name! },
    },
    data: { message: template.replaceAll('{name}', g.spec.name) },
  });
  return plan;
}

export const greetingReconciler: DomainReconciler<Greeting, GreetingFetch, GreetingFetch, unknown, GreetingStatus> = {
  async fetchRemoteState({ object, reader }) {
    const ns = object.metadata.namespace;
    const [template, output] = await Promise.all([
      fetch(reader, ConfigMaps, object.spec.configMapName, ns),
      fetch(reader, ConfigMaps, renderedName(object), ns),
    ]);
    return { template, output };
  },

  planResources: ({ object }, obs) => planGreeting(object, obs),

  getComponentHealth(obs) {
    return [
      obs.template.toUpstreamComponentHealth('Template', (cm) =>
        cm.data?.template !== undefined
          ? { state: 'Ready', reason: 'TemplateFound', message: `ConfigMap ${cm.metadata.name} has a template` }
          : {
              errors: [
                invalidSpecError(
                  'TemplateKeyMissing',
                  `ConfigMap ${cm.metadata.namespace}/${cm.metadata.name} has no key "template"`,
                ),
              ],
            },
      ),
      obs.output.toDownstreamComponentHealth('Output', (cm) => ({
        state: 'Ready',
        reason: 'OutputCreated',
        message: `ConfigMap ${cm.metadata.name} exists`,
      })),
    ];
  },

  decorateStatus(status, _cm, obs) {
    if (obs.output.ok()) status.renderedConfigMap = obs.output.value.metadata.name;
    else delete status.renderedConfigMap;
  },
};

export function greetingPipeline(
  overrides: Partial<PipelineOptions<Greeting, GreetingFetch, GreetingFetch, unknown, GreetingStatus>> = {},
) {
  return new Pipeline<Greeting, GreetingFetch, GreetingFetch, unknown, GreetingStatus>({
    name: 'greeting',
    reconciler: greetingReconciler,
    pauseAnnotation: 'samples.modelplane.io/reconcile-paused',
    labelPropagators: [staticLabels({ 'app.kubernetes.io/managed-by': 'modelplane-sample' })],
    ...overrides,
  });
}

/** the thin controller: watches and wiring, no domain logic */
export async function registerGreetingController(mgr: Manager, pipeline = greetingPipeline()): Promise<Controller> {
  // a user ConfigMap enqueues the Greetings that reference it (found through an index on the Greeting cache)
  await mgr.cache.indexField(Greetings, 'configMapName', (o) => [
    objectKeyString(o.metadata.namespace, (o as Greeting).spec.configMapName),
  ]);
  const greetings = await mgr.cache.informer(Greetings);
  return (
    mgr
      .controller('greeting')
      .for(Greetings)
      .owns(ConfigMaps)
      .watches(ConfigMaps, (cm) =>
        greetings.store
          .byIndex('configMapName', objectKeyString(cm.metadata.namespace, cm.metadata.name ?? ''))
          .map((g) => objectKeyString(g.metadata.namespace, g.metadata.name!)),
      )
      // retries of a failing write back off to at most 2 s (the default goes up to 1000 s)
      .withOptions({ rateLimiter: new ItemExponentialRateLimiter(5, 2_000) })
      .complete(pipelineReconciler(Greetings, pipeline))
  );
}

export const GREETING_CRD = crdFromZod({
  group: 'samples.modelplane.io',
  kind: 'Greeting',
  plural: 'greetings',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1alpha1',
      specRequired: false,
      spec: z.object({ configMapName: z.string(), name: z.string() }),
      status: z.object({
        status: z.string().optional(),
        renderedConfigMap: z.string().optional(),
        conditions: conditionListSchema.optional(),
      }),
    },
  ],
});

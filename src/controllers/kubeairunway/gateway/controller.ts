// Wires the gateway controller into a Manager (docs/kubeairunway.md, "Gateway"). Its own field manager,
// `kubeairunway-gateway`, owns status.gateway, status.endpoint.gatewayUrl and the GatewayReady condition.
// It reconciles a ModelDeployment when it changes (the provider's phase and endpoint included), and when a
// Gateway, its route, its InferencePool or its provider's config changes. The Gateway API and pool kinds are
// watched once the cluster serves them (a handler added then, as the providers watch their upstream kind),
// so the operator starts, and reports CRDsNotAvailable, on a cluster without them.

import { CustomResourceDefinitions, isConflict, isNotFound, type KubeClient } from '@modelplane/runtime/client';
import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { controllerOf, deepEqual, type KindRef, type KubeObject, objectKeyString } from '@modelplane/runtime/meta';
import {
  GATEWAY_FIELD_MANAGER,
  InferenceProviderConfigs,
  type ModelDeployment,
  ModelDeployments,
  RECONCILE_PAUSED_ANNOTATION,
} from '../../../apis/kubeairunway/index.ts';
import { DEFAULT_SETTLE_WINDOW_MS, Pipeline, toResult } from '../../../engine/index.ts';
import { servedGroupVersions } from '../served-apis.ts';
import { GATEWAY_API_VERSION, Gateways, HTTPRoutes, INFERENCE_POOL_API_VERSION, InferencePools } from './kinds.ts';
import { claimView, RouteClaims } from './ownership.ts';
import { routedModelName } from './route.ts';

const MODEL_NAME_INDEX = 'kubeairunway.ai/gateway-model-name';

import { type GatewayReconcilerOptions, gatewayReconciler } from './reconciler.ts';

export interface GatewayControllerOptions extends GatewayReconcilerOptions {
  settleWindowMs?: number;
}

const keyOf = (o: KubeObject) => objectKeyString(o.metadata.namespace, o.metadata.name ?? '');

type DeploymentInformer = Awaited<ReturnType<Manager['cache']['informer']>>;
/** queues reconciles of `keys`, caused by `changed` (undefined: a deletion) */
type Enqueue = (keys: Iterable<string>, changed: KubeObject | undefined) => void;

export async function registerGatewayController(
  mgr: Manager,
  opts: GatewayControllerOptions = {},
): Promise<Controller> {
  const deployments = await indexDeployments(mgr);
  const claimantsOf = (modelName: string) =>
    deployments.store.byIndex(MODEL_NAME_INDEX, modelName) as ModelDeployment[];
  const claims = new RouteClaims();
  const pipeline = new Pipeline({
    name: GATEWAY_FIELD_MANAGER,
    reconciler: gatewayReconciler({ ...opts, claimantsOf, claims }),
    pauseAnnotation: RECONCILE_PAUSED_ANNOTATION,
    statusField: null,
    // GatewayReady says which generation it judged; status.observedGeneration stays the core's and provider's
    observedGeneration: 'conditions',
    settleWindowMs: opts.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS,
  });
  let controller: Controller | undefined;
  const enqueue: Enqueue = (keys, changed) => controller?.enqueueChange(keys, changed);
  const served = servedKindsWatcher(mgr, deployments, enqueue, () => controller?.resync());
  const watchServed = served.watch;
  watchClaimants(deployments, claimantsOf, claims, served.gatewaysExist, enqueue);
  controller = mgr
    .controller(GATEWAY_FIELD_MANAGER)
    .for(ModelDeployments, { predicates: [ignoreOwnStatusWrites(GATEWAY_FIELD_MANAGER)] })
    .watches(InferenceProviderConfigs, (ipc) =>
      (deployments.store.list() as ModelDeployment[])
        .filter((md) => md.status?.provider?.name === ipc.metadata.name)
        .map(keyOf),
    )
    .withOptions({ fieldManager: GATEWAY_FIELD_MANAGER, concurrency: 2, levelBased: true })
    .complete(async (req, ctx) => {
      const crdList = await ctx.cache.list(CustomResourceDefinitions);
      await watchServed(crdList);
      const md = await ctx.cache.get(ModelDeployments, req.name, req.namespace);
      if (!md) return {};
      if (md.metadata.deletionTimestamp) {
        claims.forget(md.metadata.uid ?? '');
        if (servedGroupVersions(crdList).has(GATEWAY_API_VERSION))
          await withdrawOnDeletion(md as ModelDeployment, ctx.cache, ctx.client);
        return {};
      }
      return toResult(
        await pipeline.run(md, {
          client: ctx.client,
          reader: ctx.cache,
          recorder: ctx.recorder,
          log: ctx.log,
          signal: ctx.signal,
        }),
      );
    });
  // a Gateway API or pool CRD appearing: watch the kind, and look at every deployment again
  const crds = await mgr.cache.informer(CustomResourceDefinitions);
  crds.addHandler({
    add: () => void watchServed(crds.store.list()).catch(() => undefined),
    update: () => void watchServed(crds.store.list()).catch(() => undefined),
    delete: () => undefined,
  });
  return controller;
}

/**
 * A deployment being deleted stops serving its name at once: its route goes now, not when the garbage
 * collector gets to it after the providers' cleanup (seconds on a real cluster), since meanwhile the next
 * claimant's route would sit behind it, the older one, and its requests would reach no pod.
 */
async function withdrawOnDeletion(
  md: ModelDeployment,
  cache: Pick<Manager['cache'], 'get'>,
  client: KubeClient,
): Promise<void> {
  const route = await cache.get(HTTPRoutes, md.metadata.name ?? '', md.metadata.namespace);
  if (!route || controllerOf(route)?.uid !== md.metadata.uid) return;
  try {
    await client.delete(HTTPRoutes, route.metadata.name ?? '', route.metadata.namespace, {
      propagationPolicy: 'Background',
      ...(route.metadata.uid ? { preconditions: { uid: route.metadata.uid } } : {}),
    });
  } catch (err) {
    // gone already, or replaced by another object of that name: nothing of ours to delete
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}

/**
 * A deployment that claims, leaves or changes a model name, or starts or stops serving (its provider's
 * status.replicas.ready), changes who owns the name: the other claimants look again. Only on a change of
 * what they read (claimView), and only while a Gateway exists (without one no plan looks at claimants; a
 * Gateway appearing sends every deployment through again): every status write of every claimant reaching
 * all the others made the work grow with the square of the claimants (437,550 reconciles for 1,000
 * deployments of 4 models in bench modeldeployment).
 */
function watchClaimants(
  deployments: DeploymentInformer,
  claimantsOf: (modelName: string) => ModelDeployment[],
  claims: RouteClaims,
  gatewaysExist: () => boolean,
  enqueue: Enqueue,
): void {
  const peersOf = (md: ModelDeployment) =>
    claimantsOf(routedModelName(md))
      .filter((o) => o.metadata.uid !== md.metadata.uid)
      .map(keyOf);
  deployments.addHandler({
    add: (o) => gatewaysExist() && enqueue(peersOf(o as ModelDeployment), o),
    update: (old, o) => {
      if (!gatewaysExist()) return;
      if (deepEqual(claimView(old as ModelDeployment), claimView(o as ModelDeployment))) return;
      enqueue(new Set([...peersOf(old as ModelDeployment), ...peersOf(o as ModelDeployment)]), o);
    },
    delete: (o) => {
      claims.forget(o.metadata.uid ?? '');
      if (gatewaysExist()) enqueue(peersOf(o as ModelDeployment), undefined);
    },
  });
}

/** deployments by the model name they answer to (name ownership) */
async function indexDeployments(mgr: Manager): Promise<DeploymentInformer> {
  await mgr.cache.indexField(ModelDeployments, MODEL_NAME_INDEX, (o) => [routedModelName(o as ModelDeployment)]);
  return mgr.cache.informer(ModelDeployments);
}

/**
 * Watches Gateways, HTTPRoutes and InferencePools once the cluster serves their API (each kind once; a
 * failed start is tried again on the next call), then looks at every deployment again. A Gateway concerns
 * every deployment; a route or pool its owning deployment, a deployment of the same name and deployments
 * naming it.
 */
function servedKindsWatcher(
  mgr: Manager,
  deployments: DeploymentInformer,
  enqueue: Enqueue,
  resync: () => Promise<unknown> | undefined,
) {
  const all = () => deployments.store.list().map(keyOf);
  const related = (obj: KubeObject): string[] => {
    const ns = obj.metadata.namespace;
    const keys = new Set<string>();
    const owner = controllerOf(obj);
    if (owner?.kind === ModelDeployments.kind) keys.add(objectKeyString(ns, owner.name));
    for (const md of deployments.store.list() as ModelDeployment[]) {
      if (md.metadata.namespace !== ns) continue;
      if (md.metadata.name === obj.metadata.name || md.spec.gateway?.httpRouteRef === obj.metadata.name)
        keys.add(keyOf(md));
    }
    return [...keys];
  };
  const watching = new Set<string>();
  let gateways: DeploymentInformer | undefined;
  const watchWhenServed = async (kind: KindRef<KubeObject>, keys: (o: KubeObject) => string[]) => {
    if (watching.has(kind.kind)) return;
    watching.add(kind.kind);
    const informer = await mgr.cache.informer(kind).catch((err: unknown) => {
      watching.delete(kind.kind);
      throw err;
    });
    if (kind === Gateways) gateways = informer;
    informer.addHandler({
      add: (o) => enqueue(keys(o), o),
      update: (old, o) => enqueue(new Set([...keys(old), ...keys(o)]), o),
      delete: (o) => enqueue(keys(o), undefined),
    });
    await resync();
  };
  const watch = async (crds: Parameters<typeof servedGroupVersions>[0]) => {
    const served = servedGroupVersions(crds);
    if (served.has(GATEWAY_API_VERSION)) {
      await watchWhenServed(Gateways, all);
      await watchWhenServed(HTTPRoutes, related);
    }
    if (served.has(INFERENCE_POOL_API_VERSION)) await watchWhenServed(InferencePools, related);
  };
  /** is any Gateway in the cache? (none while the Gateway API is not served or not watched yet) */
  const gatewaysExist = () => (gateways?.store.list().length ?? 0) > 0;
  return { watch, gatewaysExist };
}

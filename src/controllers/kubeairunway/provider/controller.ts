// Wires one provider into a Manager: the ModelDeployment watch (only deployments whose status names this
// provider, or that still carry its finalizer), the watch on the upstream kind (so a `kubectl edit` of a
// managed field, or the upstream operator's status, reconciles the owner at once), the registration and
// heartbeat, and the domain metrics.
//
// The upstream kind is watched through a handler added once discovery finds it, not through the builder's
// owns(): owns() would make the controller's start fail while the CRD is missing, which is exactly the
// crash loop upstream had. The registration retries discovery and adds the watch when the CRD
// appears.

import { type CustomResourceDefinition, CustomResourceDefinitions, Deployments } from '@modelplane/runtime/client';
import {
  type Controller,
  ignoreFinalizerChange,
  ignoreOwnStatusWrites,
  or,
  type Predicate,
} from '@modelplane/runtime/controller';
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import {
  controllerOf,
  type KindRef,
  type KubeObject,
  objectKeyString,
  parseApiVersion,
} from '@modelplane/runtime/meta';
import {
  FINALIZER_CLEANUP_TIMEOUT_MS,
  HEARTBEAT_INTERVAL_MS,
  KAR_GROUP,
  type ModelDeployment,
  ModelDeployments,
  providerFieldManager,
  providerFinalizer,
} from '../../../apis/kubeairunway/index.ts';
import { DEFAULT_DOWNLOAD_RETRY_MS } from '../../../common/model-storage/index.ts';
import { type Clock, DEFAULT_SETTLE_WINDOW_MS, systemClock } from '../../../engine/index.ts';
import { servedGroupVersions } from '../served-apis.ts';
import { StorageJobs, StoragePvcs } from '../storage/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { providerMetrics } from './metrics.ts';
import { MD_PROVIDER_INDEX, providerControllerName } from './names.ts';
import { operatorVerdict } from './operator-check.ts';
import { ProviderReconciler } from './reconciler.ts';
import { ProviderRegistration } from './registration.ts';

export interface ProviderControllerOptions {
  /** how often status.lastHeartbeat is rewritten (default HEARTBEAT_INTERVAL_MS, 1 min) */
  heartbeatIntervalMs?: number;
  /** how long cleanup may take before the finalizer is dropped anyway (default 5 min, docs/kubeairunway.md's) */
  finalizerTimeoutMs?: number;
  /** how often discovery is retried while the upstream CRD is missing (default 10 s) */
  discoveryRetryMs?: number;
  /** how often to look again while an upstream object is going away (default 5 s) */
  pollMs?: number;
  clock?: Clock;
  /** how long a Deploying status may wait for an upstream that answers at once (default 2 s, engine's settle.ts) */
  settleWindowMs?: number;
  /** how long a failed model download (spec.model.storage) waits before it is tried again (default 5 min) */
  downloadRetryMs?: number;
  concurrency?: number;
  log?: Logger;
  /**
   * check the upstream operator's Deployment by this label selector ('' or unset: only the CRD is checked);
   * the shipped sets pass the definition's operatorSelector
   */
  operatorSelector?: string;
}

export interface ProviderController {
  controller: Controller;
  registration: ProviderRegistration;
}

/** ModelDeployment events this provider cares about: its selection, or its finalizer, before or after */
export function concernsProvider(provider: string): Predicate<ModelDeployment> {
  const finalizer = providerFinalizer(provider);
  const concerns = (md: ModelDeployment) =>
    md.status?.provider?.name === provider || (md.metadata.finalizers?.includes(finalizer) ?? false);
  return (ev) => concerns(ev.obj) || (ev.type === 'update' && concerns(ev.old));
}

/** one function for every provider: several providers in one Manager share the index */
const byProvider = (o: KubeObject): string[] => {
  const p = (o as ModelDeployment).status?.provider?.name;
  return p ? [p] : [];
};

const selectionChanged: Predicate<ModelDeployment> = (ev) =>
  ev.type !== 'update' || ev.old.status?.provider?.name !== ev.obj.status?.provider?.name;

function countPhases(mds: readonly ModelDeployment[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const md of mds) {
    const phase = md.status?.phase ?? 'Pending';
    out.set(phase, (out.get(phase) ?? 0) + 1);
  }
  return out;
}

export async function registerProviderController(
  mgr: Manager,
  def: ProviderDefinition,
  opts: ProviderControllerOptions = {},
): Promise<ProviderController> {
  const fieldManager = providerFieldManager(def.name);
  const clock = opts.clock ?? systemClock;
  const log = (opts.log ?? mgr.log).child({ provider: def.name });
  await mgr.cache.indexField(ModelDeployments, MD_PROVIDER_INDEX, byProvider);
  const deployments = await mgr.cache.informer(ModelDeployments);
  const metrics = providerMetrics(mgr.metrics.registry, def.name, () =>
    countPhases(deployments.store.byIndex(MD_PROVIDER_INDEX, def.name)),
  );
  const discoveryRetryMs = opts.discoveryRetryMs ?? 10_000;
  const reconciler = new ProviderReconciler({
    def,
    clock,
    finalizerTimeoutMs: opts.finalizerTimeoutMs ?? FINALIZER_CLEANUP_TIMEOUT_MS,
    discoveryRetryMs,
    pollMs: opts.pollMs ?? 5_000,
    metrics,
    settleWindowMs: opts.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS,
    downloadRetryMs: opts.downloadRetryMs ?? DEFAULT_DOWNLOAD_RETRY_MS,
  });
  const builder = mgr
    .controller(providerControllerName(def.name))
    // our own status writes and finalizer patches need no second reconcile (the sync follows the patch in
    // the same reconcile); the core's change of selection always does (ignoreOwnStatusWrites passes it, as
    // a field the core owns; selectionChanged says so outright)
    .for(ModelDeployments, {
      predicates: [
        concernsProvider(def.name),
        ignoreFinalizerChange(providerFinalizer(def.name)),
        or(selectionChanged, ignoreOwnStatusWrites(fieldManager)),
      ],
    })
    .withOptions({ fieldManager, concurrency: opts.concurrency ?? 4, levelBased: true });
  // the managed PVCs and the download Job of spec.model.storage (owned by the deployment)
  if (def.storage !== false) builder.owns(StoragePvcs as KindRef<KubeObject>).owns(StorageJobs as KindRef<KubeObject>);
  const controller = builder.complete(reconciler.reconcile);

  // upstream objects enqueue their owning deployment, and a deployment of the same name (a foreign object
  // appearing or going away changes that deployment's ResourceConflict)
  const keysFor = (obj: KubeObject): string[] => {
    const ns = obj.metadata.namespace;
    const keys = new Set<string>();
    const owner = controllerOf(obj);
    if (owner?.kind === ModelDeployments.kind && owner.apiVersion.startsWith(`${KAR_GROUP}/`))
      keys.add(objectKeyString(ns, owner.name));
    const name = obj.metadata.name ?? '';
    if (deployments.get(name, ns)) keys.add(objectKeyString(ns, name));
    return [...keys];
  };
  // through enqueueChange(), so the echo of our own apply does not reconcile the deployment again
  const enqueue = (obj: KubeObject) => controller.enqueueChange(keysFor(obj), obj);
  let watching = false;
  const watchUpstream = async () => {
    const upstream = await mgr.cache.informer(def.upstream);
    if (watching) return;
    watching = true;
    upstream.addHandler({
      add: enqueue,
      update: (old, obj) => controller.enqueueChange(new Set([...keysFor(old), ...keysFor(obj)]), obj),
      delete: (obj) => controller.enqueueChange(keysFor(obj), undefined),
    });
    log.info('watching the upstream kind', { apiVersion: def.upstream.apiVersion, kind: def.upstream.kind });
    // deployments that waited for the CRD go on at once
    await controller.resync();
  };

  const registration = new ProviderRegistration(mgr.client.withFieldManager(fieldManager), def, {
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
    discoveryRetryMs,
    clock,
    log,
    onUpstreamServed: watchUpstream,
    ...(opts.operatorSelector ? { operatorSelector: opts.operatorSelector } : {}),
  });
  // The registration is a leader-election Runnable: it lives exactly as long as the controller runs (it
  // starts after the controllers and stops before them), so only the leader registers and heartbeats, and
  // stopping (shutdown or lost lease) reports ready=false before reconciling ends.
  mgr.add(registration);
  await watchReadinessSources(mgr, registration, def, opts.operatorSelector);
  return { controller, registration };
}

/** what the provider's readiness depends on, watched so a change is reported at once: its operator and its CRD */
async function watchReadinessSources(
  mgr: Manager,
  registration: ProviderRegistration,
  def: ProviderDefinition,
  operatorSelector: string | undefined,
): Promise<void> {
  if (operatorSelector) await watchOperator(mgr, registration, operatorSelector);
  if (def.config.capabilities?.requiresCRD !== false) await watchUpstreamCrd(mgr, registration, def);
}

/** how long the CRD watch waits before asking discovery again while it disagrees with the CRD (doubling) */
const CRD_RECHECK_FIRST_MS = 250;
const CRD_RECHECK_TRIES = 6;

/**
 * The upstream kind's CRD, watched by name: deleting it (or installing it) changes the provider's readiness
 * (UpstreamCRDInstalled, status.ready) within a second instead of at the next heartbeat. Discovery, which the
 * registration asks, may lag a moment behind the CRD object, so it is asked again a few times while the two
 * disagree.
 */
async function watchUpstreamCrd(
  mgr: Manager,
  registration: ProviderRegistration,
  def: ProviderDefinition,
): Promise<void> {
  const { group, version } = parseApiVersion(def.upstream.apiVersion);
  const name = `${def.upstreamResource}.${group}`;
  const crds = await mgr.cache.informer(CustomResourceDefinitions, { fieldSelector: `metadata.name=${name}` });
  let timer: NodeJS.Timeout | undefined;
  const servedNow = () =>
    servedGroupVersions(crds.store.list() as CustomResourceDefinition[]).has(
      `${group}/${version}/${def.upstream.kind}`,
    );
  const recheck = (tries: number, delayMs: number) => {
    clearTimeout(timer);
    timer = undefined;
    if (servedNow() === registration.upstreamServed) return;
    void registration.beat().then(() => {
      if (tries <= 1 || servedNow() === registration.upstreamServed) return;
      timer = setTimeout(() => recheck(tries - 1, delayMs * 2), delayMs);
      timer.unref();
    });
  };
  const changed = () => recheck(CRD_RECHECK_TRIES, CRD_RECHECK_FIRST_MS);
  crds.addHandler({ add: changed, update: changed, delete: changed });
}

/**
 * The upstream operator's Deployments, watched: when one starts or stops having an available replica the
 * registration looks again at once, instead of at its next heartbeat, so new selections stop (or resume)
 * picking this provider within a second of the operator going down (or up).
 */
async function watchOperator(mgr: Manager, registration: ProviderRegistration, labelSelector: string): Promise<void> {
  const deployments = await mgr.cache.informer(Deployments, { labelSelector });
  const recheck = () => {
    const running = operatorVerdict(deployments.store.list(), labelSelector, '').running;
    if (running !== registration.operatorRunning) void registration.beat();
  };
  deployments.addHandler({ add: recheck, update: recheck, delete: recheck });
}

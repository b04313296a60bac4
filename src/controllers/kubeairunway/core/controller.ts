// The KubeAIRunway core controller: thin wiring around planCoreStatus. It validates, selects a provider and
// writes only the status fields docs/kubeairunway.md's ownership table gives the core, by server-side apply as
// `kubeairunway-core`; it creates nothing. It has no finalizer (providers hold their own).
import { Counter } from 'prom-client';
import { CORE_FIELD_MANAGER, type InferenceProviderConfig, InferenceProviderConfigs, isReconcilePaused, ModelDeployments } from '../../../apis/kubeairunway/index.ts';
import { ownedStatus, writeOwnedStatus } from '../../../engine/index.ts';
import { annotationsChanged, CustomResourceDefinitions, type Controller, generationChanged, type Manager, objectKeyString, or } from '../../../kube/index.ts';
import { servedGroupVersions } from '../served-apis.ts';
import { type CoreStatus, planCoreStatus } from './plan.ts';

const UNSELECTED_INDEX = 'kubeairunway.ai/unselected';
/** while nothing can be selected, look again this often: provider heartbeats go stale without any event */
const RESELECT_AFTER_MS = 30_000;

export interface CoreControllerOptions {
  heartbeatStaleAfterMs?: number;
  now?: () => number;
}

export async function registerKubeairunwayCoreController(mgr: Manager, opts: CoreControllerOptions = {}): Promise<Controller> {
  const now = opts.now ?? Date.now;
  const selections = new Counter({
    name: 'kubeairunway_provider_selection_total',
    help: 'Provider selections by the core controller, by provider and reason',
    labelNames: ['provider', 'reason'],
    registers: [mgr.metrics.registry],
  });
  // a ModelDeployment still waiting for a provider is what a provider or CRD change can unblock
  await mgr.cache.indexField(ModelDeployments, UNSELECTED_INDEX, (o) => ((o as { status?: { provider?: { name?: string } } }).status?.provider?.name ? [] : ['true']));
  const mds = await mgr.cache.informer(ModelDeployments);
  const unselected = () => mds.store.byIndex(UNSELECTED_INDEX, 'true').map((md) => objectKeyString(md.metadata.namespace, md.metadata.name!));
  const reported = new BoundedSet(4096);

  return mgr
    .controller(CORE_FIELD_MANAGER)
    // the decision depends on the spec, the pause annotation and the core's own status fields: providers'
    // status writes cannot change it, and reconciling on each of them doubled the core's work
    .for(ModelDeployments, { predicates: [or(generationChanged(), annotationsChanged())] })
    .watches(InferenceProviderConfigs, unselected)
    .watches(CustomResourceDefinitions, unselected)
    .withOptions({ concurrency: 4, levelBased: true })
    .complete(async (req, ctx) => {
      const md = await ctx.cache.get(ModelDeployments, req.name, req.namespace);
      if (!md || md.metadata.deletionTimestamp || isReconcilePaused(md.metadata.annotations)) return {};
      const [providers, crds] = await Promise.all([ctx.cache.list(InferenceProviderConfigs), ctx.cache.list(CustomResourceDefinitions)]);
      const served = servedGroupVersions(crds);
      const previous = ownedStatus(md, CORE_FIELD_MANAGER) as Partial<CoreStatus>;
      const decision = planCoreStatus(md, {
        providers: providers as InferenceProviderConfig[],
        apiServed: (gv) => served.has(gv),
        now: now(),
        previous,
        ...(opts.heartbeatStaleAfterMs !== undefined ? { heartbeatStaleAfterMs: opts.heartbeatStaleAfterMs } : {}),
      });
      const written = await writeOwnedStatus(ctx.client, md, { ...decision.status }, { fieldManager: CORE_FIELD_MANAGER, before: { ...previous } });
      // a newer object is on its way (or the object is gone): decide again from it
      if (written === 'conflict') return { requeue: true };
      if (written === 'written') {
        if (decision.selection?.provider && decision.selection.provider !== previous.provider?.name) {
          selections.inc({ provider: decision.selection.provider, reason: decision.selection.reason });
          // the first choice is in status (provider.selectedReason, the ProviderSelected condition); a
          // change of provider moves the deployment and is worth an event
          if (previous.provider?.name) ctx.recorder.event(md, 'Normal', 'ProviderSelected', `${decision.selection.message} (was ${previous.provider.name})`);
        }
        if (!decision.validation.ok && decision.validation.message !== previous.message) ctx.recorder.event(md, 'Warning', 'ValidationFailed', decision.validation.message ?? '');
      }
      for (const s of decision.skippedRules) {
        // once per object generation and rule, not on every reconcile
        const key = `${md.metadata.uid}/${md.metadata.generation}/${s.provider}/${s.rule}`;
        if (reported.add(key)) ctx.recorder.event(md, 'Warning', 'SelectionRuleSkipped', `InferenceProviderConfig ${s.provider}: selection rule "${s.rule}" was skipped: ${s.error}`);
      }
      return decision.retrySelection ? { requeueAfter: RESELECT_AFTER_MS } : {};
    });
}

/** a set that forgets its oldest entries past `limit` */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly limit: number) {}
  /** true when `key` was not there yet */
  add(key: string): boolean {
    if (this.items.has(key)) return false;
    if (this.items.size >= this.limit) this.items.delete(this.items.values().next().value!);
    this.items.add(key);
    return true;
  }
}

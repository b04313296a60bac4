// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an aggregationRule
// gets, as its rules, the de-duplicated rules of every other ClusterRole matched by its selectors
// (sorted by name). Any ClusterRole change re-syncs every aggregated role, so chains (admin ← edit ←
// view) converge through successive writes.
import type { ServerCore } from '../../core.ts';
import type { RequestContext } from '../../objects/context.ts';
import { deepEqual } from '../../objects/meta.ts';
import { type LabelSelectorObject, labelSelectorFromObject } from '../../selectors/labels.ts';
import type { KubeObject } from '../../types.ts';
import { RBAC_STORAGE } from './authorizer.ts';
import type { PolicyRule } from './rules.ts';

const CONTROLLER_USER = {
  username: 'system:serviceaccount:kube-system:clusterrole-aggregation-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const FIELD_MANAGER = 'clusterrole-aggregation-controller';
const RETRY_MS = 1000;

interface AggregationRule {
  clusterRoleSelectors?: LabelSelectorObject[];
}

/** The rules an aggregated ClusterRole should carry, given all ClusterRoles. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): PolicyRule[] {
  const rule = role.aggregationRule as AggregationRule | undefined;
  const out: PolicyRule[] = [];
  for (const sel of rule?.clusterRoleSelectors ?? []) {
    let selector: ReturnType<typeof labelSelectorFromObject>;
    try {
      selector = labelSelectorFromObject(sel);
    } catch {
      continue;
    }
    const matched = all.filter(
      (r) => r.metadata.name !== role.metadata.name && selector.matches(r.metadata.labels ?? {}),
    );
    matched.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    for (const r of matched) {
      for (const pr of (Array.isArray(r.rules) ? r.rules : []) as PolicyRule[])
        if (!out.some((x) => deepEqual(x, pr))) out.push(pr);
    }
  }
  return out;
}

export class ClusterRoleAggregator {
  private unsubscribe: (() => void) | undefined;
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly core: ServerCore) {}

  /** Subscribes and schedules a first sync (idle() tells when it is done). */
  start(): void {
    this.unsubscribe = this.core.store.watch(RBAC_STORAGE.clusterRoles, this.core.store.currentRv(), () =>
      this.schedule(),
    );
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retry) clearTimeout(this.retry);
  }

  /** Resolves once no sync is pending (tests and start()). */
  async idle(): Promise<void> {
    for (;;) {
      const current = this.running;
      await current;
      if (current === this.running && !this.scheduled) return;
      await new Promise((r) => setImmediate(r));
    }
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    this.running = this.running.then(
      () =>
        new Promise<void>((resolve) =>
          queueMicrotask(() => {
            this.scheduled = false;
            this.syncAll().then(resolve, resolve);
          }),
        ),
    );
  }

  private async syncAll(): Promise<void> {
    const rt = this.core.registry.byResource('rbac.authorization.k8s.io', 'clusterroles');
    if (!rt) return;
    const all = this.core.store.list(RBAC_STORAGE.clusterRoles);
    for (const role of all) {
      if (!role.aggregationRule || this.stopped) continue;
      const rules = aggregatedRules(role, all);
      if (deepEqual(rules, Array.isArray(role.rules) ? role.rules : [])) continue;
      const ctx: RequestContext = {
        user: CONTROLLER_USER,
        dryRun: false,
        fieldValidation: 'Ignore',
        warnings: [],
        fieldManager: FIELD_MANAGER,
      };
      try {
        await this.core.lifecycle.write({
          rt,
          version: 'v1',
          ctx,
          old: role,
          candidate: { ...role, rules },
          recordManagedFields: this.core.managedFieldsRecorder(rt, 'v1', ctx, undefined),
        });
      } catch {
        // A webhook or validation refused the write; try again later, as the controller's workqueue would.
        if (!this.retry && !this.stopped) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            this.schedule();
          }, RETRY_MS).unref();
        }
      }
    }
  }
}

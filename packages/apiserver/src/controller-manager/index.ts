// The parts of kube-controller-manager the embedded API server runs itself, because on a real cluster
// object lifecycle depends on them: the garbage collector, the namespace controller, the
// ServiceAccount / root-CA publishers and the ClusterRole aggregation controller.
import { ClusterRoleAggregator } from '../auth/rbac/aggregation.ts';
import type { ServerCore } from '../core.ts';
import { GarbageCollector } from './gc.ts';
import { NamespaceController } from './namespace-lifecycle.ts';
import { ServiceAccountController } from './service-accounts.ts';

export { defaultPropagationPolicy, FOREGROUND_FINALIZER, GarbageCollector, ORPHAN_FINALIZER } from './gc.ts';
export { NAMESPACE_FINALIZER, NamespaceController } from './namespace-lifecycle.ts';
export { DEFAULT_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP, ServiceAccountController } from './service-accounts.ts';

export interface LifecycleControllerOptions {
  /** PEM of the API server's CA, published in every namespace's kube-root-ca.crt */
  caPem: string;
  warn?: (message: string) => void;
}

export class LifecycleControllers {
  readonly gc: GarbageCollector;
  readonly namespaces: NamespaceController;
  readonly serviceAccounts: ServiceAccountController;
  /** fills in the rules of aggregated ClusterRoles (admin, edit, view and any with aggregationRule) */
  readonly clusterRoles: ClusterRoleAggregator;

  constructor(core: ServerCore, opts: LifecycleControllerOptions) {
    const warn = opts.warn ? { warn: opts.warn } : {};
    this.gc = new GarbageCollector(core, warn);
    this.namespaces = new NamespaceController(core, warn);
    this.serviceAccounts = new ServiceAccountController(core, { caPem: opts.caPem, ...warn });
    this.clusterRoles = new ClusterRoleAggregator(core);
  }

  start(): void {
    this.clusterRoles.start();
    this.gc.start();
    this.namespaces.start();
    this.serviceAccounts.start();
  }

  stop(): void {
    this.serviceAccounts.stop();
    this.namespaces.stop();
    this.gc.stop();
    this.clusterRoles.stop();
  }

  /**
   * Resolves once every controller is idle at the same moment (work by one often queues work for
   * another, so this waits until a full round finds nothing to do). Retries waiting on a backoff
   * timer are not waited for.
   */
  async idle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      await Promise.all([
        this.gc.idle(),
        this.namespaces.idle(),
        this.serviceAccounts.idle(),
        this.clusterRoles.idle(),
      ]);
      // Let listeners queued by the last writes run, then check nothing new arrived.
      await new Promise((r) => setImmediate(r));
      if (this.quiet()) return;
    }
  }

  private quiet(): boolean {
    return this.gc.isIdle() && this.namespaces.isIdle() && this.serviceAccounts.isIdle();
  }
}

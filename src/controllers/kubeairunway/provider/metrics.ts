// KubeAIRunway's domain metrics (docs/kubeairunway.md, under docs/kubeairunway.md's kubeairunway_ prefix), next to the
// runtime's per-controller ones on the manager's registry. Registered once per registry and shared by
// every provider running in the process (each labels its own series with provider=<name>).
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ProviderMetrics {
  reconciliationErrors: Counter<'provider' | 'error_type'>;
  phaseTransitions: Counter<'provider' | 'from_phase' | 'to_phase'>;
  deploymentStatus: Gauge<'provider' | 'phase'>;
}

/** counts per phase, read when Prometheus scrapes */
export type PhaseCounter = () => Map<string, number>;

const byRegistry = new WeakMap<Registry, { metrics: ProviderMetrics; counters: Map<string, PhaseCounter> }>();

/** the metrics on `registry`, registering them on first use; `countPhases` feeds this provider's gauge */
export function providerMetrics(registry: Registry, provider: string, countPhases: PhaseCounter): ProviderMetrics {
  let entry = byRegistry.get(registry);
  if (!entry) {
    const counters = new Map<string, PhaseCounter>();
    const registers = [registry];
    entry = {
      counters,
      metrics: {
        reconciliationErrors: new Counter({
          name: 'kubeairunway_reconciliation_errors_total',
          help: 'Provider reconciliations that ended in an error, by provider and error type',
          labelNames: ['provider', 'error_type'],
          registers,
        }),
        phaseTransitions: new Counter({
          name: 'kubeairunway_deployment_phase_transitions_total',
          help: 'ModelDeployment phase changes written by a provider',
          labelNames: ['provider', 'from_phase', 'to_phase'],
          registers,
        }),
        deploymentStatus: new Gauge({
          name: 'kubeairunway_deployment_status',
          help: 'ModelDeployments handled by a provider, by phase',
          labelNames: ['provider', 'phase'],
          registers,
          collect() {
            this.reset();
            for (const [name, count] of counters)
              for (const [phase, n] of count()) this.set({ provider: name, phase }, n);
          },
        }),
      },
    };
    byRegistry.set(registry, entry);
  }
  entry.counters.set(provider, countPhases);
  return entry.metrics;
}

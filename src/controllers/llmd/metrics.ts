// The autoscaler's decisions out, on the manager's /metrics (docs/autoscaling.md, "Metrics out"): what HPA
// (through prometheus-adapter) or KEDA read to scale each variant. Names and labels as llm-d's autoscaler.
import { Counter, Gauge, type Registry } from 'prom-client';

type VariantLabel = 'variant_name' | 'namespace' | 'accelerator_type' | 'controller_instance';
type ScalingLabel = 'variant_name' | 'namespace' | 'direction' | 'reason' | 'controller_instance';

export class AutoscalerMetrics {
  private readonly desired: Gauge<VariantLabel>;
  private readonly current: Gauge<VariantLabel>;
  private readonly ratio: Gauge<VariantLabel>;
  private readonly scaling: Counter<ScalingLabel>;
  private readonly extra: Partial<Record<'controller_instance', string>>;
  private readonly seen = new Map<string, Record<string, string>>();
  /** the counter's label sets per VA (`namespace/name`), so a deleted VA's series can all be removed */
  private readonly counted = new Map<string, Map<string, Record<string, string>>>();

  constructor(registry: Registry, controllerInstance?: string) {
    const instance = controllerInstance ? (['controller_instance'] as const) : [];
    this.extra = controllerInstance ? { controller_instance: controllerInstance } : {};
    const registers = [registry];
    const variantLabels: VariantLabel[] = ['variant_name', 'namespace', 'accelerator_type', ...instance];
    this.desired = new Gauge({
      name: 'wva_desired_replicas',
      help: 'Replicas the saturation autoscaler wants for the variant',
      labelNames: variantLabels,
      registers,
    });
    this.current = new Gauge({
      name: 'wva_current_replicas',
      help: "The variant's current replicas (its Deployment's status.replicas)",
      labelNames: variantLabels,
      registers,
    });
    this.ratio = new Gauge({
      name: 'wva_desired_ratio',
      help: 'Desired over current replicas (the desired replicas when current is 0)',
      labelNames: variantLabels,
      registers,
    });
    this.scaling = new Counter({
      name: 'wva_replica_scaling_total',
      help: 'Scaling decisions that changed the desired replicas, by direction and reason',
      labelNames: ['variant_name', 'namespace', 'direction', 'reason', ...instance],
      registers,
    });
  }

  set(v: { name: string; namespace: string; accelerator: string }, desired: number, current: number): void {
    const labels = { variant_name: v.name, namespace: v.namespace, accelerator_type: v.accelerator, ...this.extra };
    const key = `${v.namespace}/${v.name}`;
    const before = this.seen.get(key);
    if (before && before.accelerator_type !== labels.accelerator_type) this.drop(before);
    this.seen.set(key, labels);
    this.desired.set(labels, desired);
    this.current.set(labels, current);
    this.ratio.set(labels, current === 0 ? desired : desired / current);
  }

  countScaling(v: { name: string; namespace: string }, direction: 'up' | 'down', reason: string): void {
    const labels = { variant_name: v.name, namespace: v.namespace, direction, reason, ...this.extra };
    const key = `${v.namespace}/${v.name}`;
    let sets = this.counted.get(key);
    if (!sets) this.counted.set(key, (sets = new Map()));
    sets.set(`${direction}/${reason}`, labels);
    this.scaling.inc(labels);
  }

  /** a deleted VariantAutoscaling (or one no longer ours) stops being exported: gauges and counters */
  forget(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const labels = this.seen.get(key);
    if (labels) this.drop(labels);
    this.seen.delete(key);
    for (const l of this.counted.get(key)?.values() ?? []) this.scaling.remove(l);
    this.counted.delete(key);
  }

  private drop(labels: Record<string, string>): void {
    this.desired.remove(labels);
    this.current.remove(labels);
    this.ratio.remove(labels);
  }
}

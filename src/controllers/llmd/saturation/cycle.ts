// One optimisation cycle over every model (docs/autoscaling.md, "The algorithm"): analysis and targets per
// model+namespace group, and the safety net. Pure and synchronous: the engine loop gathers the inputs (from
// the config cache, the informer cache and the metrics source) before calling it.
import type { ResolvedConfig } from '../config/cache.ts';
import { analyzeModel, type ModelAnalysis, type ReplicaMetrics } from './analyzer.ts';
import {
  calculateTargets,
  type ScaleToZeroInput,
  type VariantAction,
  type VariantState,
  type VariantTarget,
} from './targets.ts';

export interface ModelInput {
  readonly namespace: string;
  readonly modelID: string;
  /** undefined: no configuration loaded for this model (it is skipped) */
  readonly config?: ResolvedConfig;
  readonly variants: readonly VariantState[];
  readonly scaleToZero: ScaleToZeroInput;
  /** the metrics could not be read for this model this cycle (the safety net applies) */
  readonly metricsError?: string;
  /**
   * a variant set aside from the decision still runs replicas without usable metrics, so the model's load
   * is unknown: every variant keeps its size (the transition guard)
   */
  readonly unmeasured?: string;
}

/** `withheld`: the variant had no evidence (saturation/evidence.ts) and got no decision */
export type ModelOutcome = 'optimized' | 'safety-net' | 'skipped' | 'withheld';

export interface Decision extends VariantTarget {
  readonly outcome: ModelOutcome;
}

export interface ModelDecision {
  readonly namespace: string;
  readonly modelID: string;
  readonly outcome: ModelOutcome;
  readonly analysis?: ModelAnalysis;
  readonly decisions: readonly Decision[];
}

export function runSaturationCycle(models: readonly ModelInput[]): ModelDecision[] {
  return models.map(optimizeModel);
}

export function optimizeModel(m: ModelInput): ModelDecision {
  const head = { namespace: m.namespace, modelID: m.modelID };
  if (!m.config) {
    const why = `no saturation configuration applies to model ${m.modelID} in namespace ${m.namespace} (the ConfigMap or its "default" entry is missing or invalid)`;
    return { ...head, outcome: 'skipped', decisions: m.variants.map((v) => ({ ...keep(v, why), outcome: 'skipped' })) };
  }
  if (m.metricsError !== undefined) return safetyNet(m, `metrics unavailable: ${m.metricsError}`);
  try {
    const replicas: ReplicaMetrics[] = m.variants.flatMap((v) => v.replicas);
    const analysis = analyzeModel(replicas, m.config.config);
    const targets = calculateTargets(m.variants, analysis, m.scaleToZero, m.unmeasured);
    return {
      ...head,
      outcome: 'optimized',
      analysis,
      decisions: targets.map((t) => ({
        ...t,
        reason: `${t.reason} [config ${m.config!.origin}]`,
        outcome: 'optimized',
      })),
    };
  } catch (err) {
    return safetyNet(m, `analysis failed: ${(err as Error).message}`);
  }
}

/** on an error the previous decision (or the current size) is emitted again, so HPA keeps a value */
function safetyNet(m: ModelInput, why: string): ModelDecision {
  return {
    namespace: m.namespace,
    modelID: m.modelID,
    outcome: 'safety-net',
    decisions: m.variants.map((v) => ({ ...keep(v, `safety net (${why})`), outcome: 'safety-net' })),
  };
}

function keep(v: VariantState, why: string): VariantTarget {
  const target = v.previousDesired ?? v.current;
  const action: VariantAction = 'no-change';
  return { name: v.name, target, action, reason: `${why}; keeping ${target} replicas` };
}

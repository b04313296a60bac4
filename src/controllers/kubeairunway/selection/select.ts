// Provider selection (docs/kubeairunway.md, "Selection"): explicit spec.provider.name wins; otherwise an earlier
// choice in status.provider.name is kept (sticky); otherwise, among ready providers whose capabilities match
// the engine, GPU/CPU and serving mode, the one whose true CEL rules reach the highest priority wins, a tie
// going to the lexicographically smallest name. A provider with no true rule stays a candidate at priority 0.
// A rule that fails to compile, fails to evaluate or is not a bool is skipped and reported.
//
// CEL sees exactly one variable, `spec`: the ModelDeployment's spec as stored (integers as CEL ints).

import { CelCompileError, type CelProgram, compileCel, evaluateBool, toCel } from '@modelplane/apimachinery/cel';
import type {
  EngineCapability,
  InferenceProviderConfig,
  ModelDeployment,
  ModelDeploymentSpec,
} from '../../../apis/kubeairunway/index.ts';
import { DEFAULT_GPU_TYPE, HEARTBEAT_STALE_AFTER_MS } from '../../../apis/kubeairunway/index.ts';
import { providerReadiness } from './readiness.ts';

export type SelectionReason =
  | 'ExplicitSelection'
  | 'PreviouslySelected'
  | 'AutoSelected'
  | 'NoHealthyProviders'
  | 'NoCompatibleProvider';

export interface SkippedRule {
  provider: string;
  rule: string;
  error: string;
}

export interface SelectionResult {
  /** undefined when no provider could be selected (reason says why) */
  provider?: string;
  reason: SelectionReason;
  /** for status.provider.selectedReason / the ProviderSelected condition */
  message: string;
  /** the winning priority (AutoSelected only) */
  priority?: number;
  skippedRules: SkippedRule[];
}

export interface SelectionOptions {
  /** milliseconds since the epoch; defaults to Date.now() */
  now?: number;
  /** a heartbeat older than this makes a provider not ready */
  heartbeatStaleAfterMs?: number;
}

const CEL_VARIABLES = ['spec'];
export type CompiledRule = { condition: string; priority: number; program?: CelProgram; compileError?: string };

const ruleCache = new Map<string, CompiledRule['program'] | CelCompileError>();
const RULE_CACHE_LIMIT = 4096;

/** compiles once per rule text; a compile error is cached too, so a bad rule costs nothing after the first time */
function compileRule(condition: string): CelProgram | CelCompileError {
  let entry = ruleCache.get(condition);
  if (entry === undefined) {
    try {
      entry = compileCel(condition, { variables: CEL_VARIABLES });
    } catch (err) {
      entry =
        err instanceof CelCompileError ? err : new CelCompileError(String((err as Error)?.message ?? err), condition);
    }
    if (ruleCache.size >= RULE_CACHE_LIMIT) ruleCache.delete(ruleCache.keys().next().value!);
    ruleCache.set(condition, entry);
  }
  return entry;
}

export interface PreparedProvider {
  name: string;
  /** honours scaling.replicas: 0 */
  zeroReplicas: boolean;
  engines: ReadonlyMap<string, EngineCapability>;
  rules: CompiledRule[];
}

// Keyed by object identity: informer caches hand out the same object until it changes, so each config is
// prepared once per version.
const prepared = new WeakMap<InferenceProviderConfig, PreparedProvider>();

/** the provider's capabilities by engine and its compiled rules, highest priority first (cached per object) */
export function prepareProvider(config: InferenceProviderConfig): PreparedProvider {
  let p = prepared.get(config);
  if (p) return p;
  const engines = new Map<string, EngineCapability>();
  for (const e of config.spec?.capabilities?.engines ?? []) engines.set(e.name, e);
  // highest priority first, so evaluation can stop at the first true rule (the rest cannot raise the maximum)
  const rules = (config.spec?.selectionRules ?? [])
    .map((r): CompiledRule => {
      const compiled = compileRule(r.condition);
      return compiled instanceof CelCompileError
        ? { condition: r.condition, priority: r.priority ?? 0, compileError: compiled.message }
        : { condition: r.condition, priority: r.priority ?? 0, program: compiled };
    })
    .sort((a, b) => b.priority - a.priority);
  p = {
    name: config.metadata.name ?? '',
    zeroReplicas: config.spec?.capabilities?.zeroReplicas === true,
    engines,
    rules,
  };
  prepared.set(config, p);
  return p;
}

/** why a provider's capabilities rule it out (undefined: they match); the explanation views show it */
export function capabilityMismatch(
  p: PreparedProvider,
  engine: string | undefined,
  gpuTypes: readonly string[] | undefined,
  mode: string,
  zeroReplicas = false,
): string | undefined {
  const cap = engine === undefined ? undefined : p.engines.get(engine);
  if (!cap) return `does not support engine ${engine ?? '<none>'}`;
  if (!(gpuTypes ? cap.gpuSupport : cap.cpuSupport))
    return gpuTypes ? `engine ${engine} has no GPU support` : `engine ${engine} has no CPU support`;
  if (gpuTypes && cap.gpuTypes && !gpuTypes.every((t) => cap.gpuTypes!.includes(t)))
    return `GPU type ${gpuTypes.join(', ')} is not among ${cap.gpuTypes.join(', ')}`;
  if (!(cap.servingModes ?? ['aggregated']).includes(mode as 'aggregated'))
    return `serving mode ${mode} is not supported`;
  if (zeroReplicas && !p.zeroReplicas) return 'does not run 0 replicas (capabilities.zeroReplicas)';
  return undefined;
}

function supports(
  p: PreparedProvider,
  engine: string | undefined,
  gpuTypes: readonly string[] | undefined,
  mode: string,
  zeroReplicas: boolean,
): boolean {
  return capabilityMismatch(p, engine, gpuTypes, mode, zeroReplicas) === undefined;
}

/** scaling.replicas: 0 (aggregated: disaggregated serving counts prefill and decode replicas instead) */
export function wantsZeroReplicas(spec: ModelDeploymentSpec): boolean {
  return spec.scaling?.replicas === 0 && spec.serving?.mode !== 'disaggregated';
}

/** GPU or CPU, as the capability filter sees it: any top-level GPU, and disaggregated serving always */
export function wantsGpu(spec: ModelDeploymentSpec): boolean {
  return (spec.resources?.gpu?.count ?? 0) > 0 || spec.serving?.mode === 'disaggregated';
}

/** the GPU resource names a deployment asks for (undefined for CPU-only), defaults applied */
export function requestedGpuTypes(spec: ModelDeploymentSpec): string[] | undefined {
  if (!wantsGpu(spec)) return undefined;
  const gpus =
    spec.serving?.mode === 'disaggregated'
      ? [spec.scaling?.prefill?.gpu, spec.scaling?.decode?.gpu]
      : [spec.resources?.gpu];
  return gpus.map((g) => g?.type ?? DEFAULT_GPU_TYPE);
}

export function selectProvider(
  md: Pick<ModelDeployment, 'spec' | 'status'>,
  providers: ReadonlyArray<InferenceProviderConfig>,
  opts: SelectionOptions = {},
): SelectionResult {
  const skippedRules: SkippedRule[] = [];
  const explicit = md.spec?.provider?.name;
  if (explicit)
    return { provider: explicit, reason: 'ExplicitSelection', message: 'explicit provider selection', skippedRules };
  const previous = md.status?.provider?.name;
  if (previous) {
    return {
      provider: previous,
      reason: 'PreviouslySelected',
      message: md.status?.provider?.selectedReason || `provider ${previous} was selected earlier (selection is sticky)`,
      skippedRules,
    };
  }

  const spec = md.spec ?? { model: {} };
  const { candidates, notReady, notReadyFitting, wanted } = compatibleProviders(spec, providers, opts);
  if (notReady.length === providers.length) {
    const detail = notReady.length ? ` (${notReady.join('; ')})` : ' (no InferenceProviderConfig registered)';
    return { reason: 'NoHealthyProviders', message: `no healthy providers available${detail}`, skippedRules };
  }
  if (candidates.length === 0 && notReadyFitting.length > 0) {
    // some provider could run it, but none of those is alive: say which and why, not "no compatible provider"
    return {
      reason: 'NoHealthyProviders',
      message: `no healthy provider can run this configuration (${wanted}): ${notReadyFitting.join('; ')}`,
      skippedRules,
    };
  }
  if (candidates.length === 0) {
    return {
      reason: 'NoCompatibleProvider',
      message: `no compatible provider found for this configuration (${wanted})`,
      skippedRules,
    };
  }
  // the CEL view of the spec, built once and only when a rule is evaluated
  let celSpec: unknown;
  const cel = () => (celSpec ??= toCel(spec));
  let best: PreparedProvider | undefined;
  let bestPriority = -1;
  for (const p of candidates) {
    const priority = rulePriority(p, cel, skippedRules);
    if (priority > bestPriority || (priority === bestPriority && p.name < best!.name)) {
      best = p;
      bestPriority = priority;
    }
  }
  return {
    provider: best!.name,
    reason: 'AutoSelected',
    message: `matched capabilities: ${wanted}`,
    priority: bestPriority,
    skippedRules,
  };
}

/**
 * The ready providers whose capabilities fit the spec (engine, GPU types, serving mode, scale to zero), the
 * ones not ready with why, and the wanted capabilities as the messages name them.
 */
function compatibleProviders(
  spec: ModelDeploymentSpec,
  providers: ReadonlyArray<InferenceProviderConfig>,
  opts: SelectionOptions,
): { candidates: PreparedProvider[]; notReady: string[]; notReadyFitting: string[]; wanted: string } {
  const engine = spec.engine?.type;
  const gpuTypes = requestedGpuTypes(spec);
  const mode = spec.serving?.mode ?? 'aggregated';
  const zeroReplicas = wantsZeroReplicas(spec);
  const now = opts.now ?? Date.now();
  const staleAfter = opts.heartbeatStaleAfterMs ?? HEARTBEAT_STALE_AFTER_MS;
  const notReady: string[] = [];
  const notReadyFitting: string[] = [];
  const candidates: PreparedProvider[] = [];
  for (const config of providers) {
    const readiness = providerReadiness(config, now, staleAfter);
    const p = prepareProvider(config);
    const fits = supports(p, engine, gpuTypes, mode, zeroReplicas);
    if (!readiness.ready) {
      notReady.push(`${config.metadata.name}: ${readiness.reason}`);
      if (fits) notReadyFitting.push(`${config.metadata.name}: ${readiness.reason}`);
    } else if (fits) candidates.push(p);
  }
  const gpu = gpuTypes !== undefined;
  const wanted = `engine=${engine ?? '<none>'}, gpu=${gpu}, mode=${mode}${zeroReplicas ? ', replicas=0' : ''}`;
  return { candidates, notReady, notReadyFitting, wanted };
}

/**
 * The highest priority among a provider's true rules, 0 when none is true. A rule that does not compile or
 * fails to evaluate is skipped and reported in `skippedRules`.
 */
function rulePriority(p: PreparedProvider, cel: () => unknown, skippedRules: SkippedRule[]): number {
  // -1 until a rule is true: a priority-0 rule is evaluated too (so an error in it is reported), and a
  // provider with no true rule still competes at priority 0
  let priority = -1;
  for (const rule of p.rules) {
    if (rule.compileError !== undefined) {
      skippedRules.push({ provider: p.name, rule: rule.condition, error: rule.compileError });
      continue;
    }
    if (rule.priority <= priority) continue; // a true rule of this priority would not raise the maximum
    const spec = cel();
    try {
      if (evaluateBool(rule.program!, { spec })) priority = rule.priority;
    } catch (err) {
      skippedRules.push({ provider: p.name, rule: rule.condition, error: (err as Error).message });
    }
  }
  return Math.max(priority, 0);
}

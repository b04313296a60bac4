// Why a ModelDeployment got its provider, for people (the dashboard): every registered provider with its
// readiness, whether its capabilities match, and each CEL rule's outcome with its priority. Pure, and built
// from the same pieces as selectProvider, so it cannot disagree with what the controller does.

import { evaluateBool, toCel } from '@modelplane/apimachinery/cel';
import {
  CONDITION_PROVIDER_SELECTED,
  type InferenceProviderConfig,
  type ModelDeployment,
} from '../../../apis/kubeairunway/index.ts';
import type { ProviderOutcome, RuleOutcome, SelectionExplanation } from './explanation.ts';
import { providerReadiness } from './readiness.ts';
import { capabilityMismatch, prepareProvider, requestedGpuTypes, selectProvider, wantsZeroReplicas } from './select.ts';

function evaluateRules(config: InferenceProviderConfig, celSpec: () => unknown): RuleOutcome[] {
  return prepareProvider(config).rules.map((rule): RuleOutcome => {
    if (rule.compileError !== undefined)
      return { condition: rule.condition, priority: rule.priority, result: 'error', error: rule.compileError };
    try {
      return {
        condition: rule.condition,
        priority: rule.priority,
        result: evaluateBool(rule.program!, { spec: celSpec() }),
      };
    } catch (err) {
      return { condition: rule.condition, priority: rule.priority, result: 'error', error: (err as Error).message };
    }
  });
}

export function explainSelection(
  md: Pick<ModelDeployment, 'spec' | 'status'>,
  providers: ReadonlyArray<InferenceProviderConfig>,
  now = Date.now(),
): SelectionExplanation {
  const spec = md.spec ?? { model: {} };
  const explicit = spec.provider?.name;
  const selected = md.status?.provider?.name || undefined;
  const fresh = selectProvider({ spec }, providers, { now });
  const gpuTypes = requestedGpuTypes(spec);
  const engine = spec.engine?.type;
  const mode = spec.serving?.mode ?? 'aggregated';
  let cel: unknown;
  const celSpec = () => (cel ??= toCel(spec));
  const chosen = selected ?? fresh.provider;
  const outcomes = [...providers]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((config): ProviderOutcome => {
      const name = config.metadata.name ?? '';
      const readiness = providerReadiness(config, now);
      const mismatch = capabilityMismatch(prepareProvider(config), engine, gpuTypes, mode, wantsZeroReplicas(spec));
      const rules = evaluateRules(config, celSpec);
      const priority = Math.max(0, ...rules.filter((r) => r.result === true).map((r) => r.priority));
      return {
        name,
        ready: readiness.ready,
        ...(readiness.reason ? { readyReason: readiness.reason } : {}),
        compatible: mismatch === undefined,
        ...(mismatch ? { compatibleReason: mismatch } : {}),
        rules,
        priority,
        chosen: name === chosen,
      };
    });
  // a recorded choice was made by the rules when its ProviderSelected condition says so; otherwise it was kept
  const recorded = md.status?.conditions?.find((c) => c.type === CONDITION_PROVIDER_SELECTED)?.reason;
  const how = explicit
    ? 'explicit'
    : !selected
      ? fresh.provider
        ? 'auto'
        : 'none'
      : recorded === 'AutoSelected'
        ? 'auto'
        : 'sticky';
  return {
    ...(selected ? { selected } : {}),
    ...(md.status?.provider?.selectedReason ? { selectedReason: md.status.provider.selectedReason } : {}),
    how,
    wanted: { ...(engine ? { engine } : {}), gpu: gpuTypes !== undefined, mode },
    providers: outcomes,
    ...(fresh.provider ? { wouldSelect: fresh.provider } : {}),
    message: fresh.message,
  };
}

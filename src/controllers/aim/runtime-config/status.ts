// The runtime configs' status, decided from data (pure): ConfigValid, GatewayFound, DeprecatedFields and
// Ready, each naming the field and the cause. Ready is False when the spec is invalid or the Gateway is
// missing; a Gateway that cannot be checked (Unknown) or a deprecated spelling does not hold Ready back.
import { asInfo, asWarning, type ConditionManager, type EngineStatus, silent } from '../../../engine/index.ts';
import type { GatewayCheck } from './gateway.ts';
import type { RuntimeConfigReport, SpecProblem } from './validate.ts';

export const CONDITION = {
  Ready: 'Ready',
  ConfigValid: 'ConfigValid',
  GatewayFound: 'GatewayFound',
  DeprecatedFields: 'DeprecatedFields',
} as const;

export interface RuntimeConfigStatus extends EngineStatus {
  observedGeneration?: number;
}

/** what the Gateway lookup found: `unreadable` = the read failed (not a NotFound); the last verdict is kept */
export type GatewayLookup = 'found' | 'missing' | 'unreadable';

export interface RuntimeConfigObservation {
  report: RuntimeConfigReport;
  gateway: GatewayCheck;
  /** set when gateway.kind is `check` */
  lookup?: GatewayLookup;
}

export function setRuntimeConfigStatus(
  status: RuntimeConfigStatus,
  cm: ConditionManager,
  obs: RuntimeConfigObservation,
  generation: number | undefined,
): void {
  if (generation !== undefined) status.observedGeneration = generation;

  const { errors, warnings } = obs.report;
  if (errors.length > 0)
    cm.markFalse(CONDITION.ConfigValid, reasonOf(errors, 'InvalidSpec'), joined(errors), asWarning());
  else cm.markTrue(CONDITION.ConfigValid, 'ConfigurationValid', 'Configuration is valid', asInfo());

  setGatewayCondition(cm, obs);

  if (warnings.length > 0)
    cm.markTrue(CONDITION.DeprecatedFields, reasonOf(warnings, 'DeprecatedField'), joined(warnings), asWarning());
  else cm.delete(CONDITION.DeprecatedFields);

  // the causes were evented by their own conditions; Ready going False adds no second warning
  const gateway = cm.get(CONDITION.GatewayFound);
  if (errors.length > 0) {
    cm.markFalse(CONDITION.Ready, reasonOf(errors, 'InvalidSpec'), joined(errors), silent());
  } else if (gateway?.status === 'False') {
    cm.markFalse(CONDITION.Ready, gateway.reason, gateway.message, silent());
  } else {
    const note = gateway?.status === 'True' ? `; ${gateway.message}` : '';
    cm.markTrue(CONDITION.Ready, 'ConfigurationValid', `Configuration is valid${note}`, asInfo());
  }
}

function setGatewayCondition(cm: ConditionManager, obs: RuntimeConfigObservation): void {
  const g = obs.gateway;
  switch (g.kind) {
    case 'none':
      cm.delete(CONDITION.GatewayFound);
      return;
    case 'unchecked':
      cm.markUnknown(CONDITION.GatewayFound, g.reason, g.message, asInfo());
      return;
    case 'check': {
      const where = `Gateway ${g.namespace}/${g.name}`;
      if (obs.lookup === 'found') cm.markTrue(CONDITION.GatewayFound, 'GatewayFound', `${where} exists`, asInfo());
      else if (obs.lookup === 'missing') {
        cm.markFalse(
          CONDITION.GatewayFound,
          'GatewayNotFound',
          `spec.routing.gatewayRef: ${where} does not exist; HTTPRoutes built from this config would not be accepted by any Gateway`,
          asWarning(),
        );
      } else {
        // a failed read says nothing about the Gateway: keep the last verdict (the engine reports the outage)
        const before = cm.initial(CONDITION.GatewayFound);
        if (before?.message.includes(where)) cm.keep(CONDITION.GatewayFound);
        else cm.markUnknown(CONDITION.GatewayFound, 'GatewayUnreadable', `${where} could not be read yet`, silent());
      }
    }
  }
}

/** one reason when all problems share it, else the general one */
function reasonOf(problems: readonly SpecProblem[], general: string): string {
  const reasons = new Set(problems.map((p) => p.reason));
  return reasons.size === 1 ? problems[0]!.reason : general;
}

function joined(problems: readonly SpecProblem[]): string {
  return problems.map((p) => p.message).join('; ');
}

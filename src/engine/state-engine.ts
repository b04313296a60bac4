// The state engine: from the component health of one reconcile to the apply/requeue decision, the
// `<Component>Ready` and parent conditions, `Ready`, and the overall state. Pure: it works on a
// ConditionManager and data, so every rule of docs/controllers.md's table is unit-testable without a cluster.

import { asError, asInfo, asWarning, type ConditionManager, quietWhenNew, silent, withDebugLog } from './conditions.ts';
import {
  BLOCKING_PRIORITY,
  CATEGORY_BEHAVIOUR,
  type CategorizedError,
  type ErrorCategory,
  PARENT_TRUE_REASON,
  ParentCondition,
  type ParentConditionType,
} from './errors.ts';
import type { GraceState } from './grace.ts';
import {
  type ComponentState,
  conditionTypeFor,
  isErrorState,
  isReadyState,
  type NormalizedHealth,
  STATE_PRIORITY,
  worstState,
} from './health.ts';

/** an error with where it came from: a component, or the plan/apply step */
export interface SourcedError {
  error: CategorizedError;
  /** the component that reported it; undefined for planning and apply failures */
  component?: string;
}

export interface Decision {
  shouldApply: boolean;
  /** retry with exponential backoff (infrastructure errors) */
  requeueWithBackoff: boolean;
  /** the categories that stopped the apply, worst first */
  blockedBy: ErrorCategory[];
}

/** Infrastructure wins: no apply and a retry. Otherwise any apply-blocking category stops the apply without a retry. */
export function decide(errors: readonly CategorizedError[]): Decision {
  const cats = new Set(errors.map((e) => e.category));
  const blockedBy = [...cats].filter((c) => CATEGORY_BEHAVIOUR[c].blocksApply);
  const requeueWithBackoff = [...cats].some((c) => CATEGORY_BEHAVIOUR[c].requeueWithBackoff);
  return { shouldApply: blockedBy.length === 0, requeueWithBackoff, blockedBy };
}

export function sourcedErrors(
  components: readonly NormalizedHealth[],
  other: readonly CategorizedError[] = [],
): SourcedError[] {
  const out: SourcedError[] = [];
  for (const h of components) for (const error of h.errors) out.push({ error, component: h.component });
  for (const error of other) out.push({ error });
  return out;
}

function describe(e: SourcedError): string {
  return e.component ? `${e.component}: ${e.error.message}` : e.error.message;
}

const PARENT_TYPES: ReadonlySet<string> = new Set(Object.values(ParentCondition));

/**
 * DependenciesReachable, AuthValid, ConfigValid: created on the first error of their category, then kept
 * for good and flipped back to True when the errors go away. Infrastructure errors only count once the
 * grace period is over; during it DependenciesReachable stays as it was.
 */
export function setParentConditions(
  cm: ConditionManager,
  errors: readonly SourcedError[],
  grace: GraceState,
  only?: ReadonlySet<ParentConditionType>,
): void {
  const byParent = new Map<ParentConditionType, SourcedError[]>();
  for (const e of errors) {
    const parent = CATEGORY_BEHAVIOUR[e.error.category].parent;
    if (!parent) continue;
    const list = byParent.get(parent.type) ?? [];
    list.push(e);
    byParent.set(parent.type, list);
  }
  for (const type of Object.values(ParentCondition)) {
    if (only && !only.has(type)) continue;
    const errs = byParent.get(type) ?? [];
    if (type === 'DependenciesReachable' && grace.withinGrace) {
      cm.keep(type);
      continue;
    }
    if (errs.length > 0) {
      // ConfigValid: InvalidSpec outranks ReferenceNotFound
      const first = errs.find((e) => e.error.category === 'InvalidSpec') ?? errs[0]!;
      const reason = CATEGORY_BEHAVIOUR[first.error.category].parent!.reason;
      cm.markFalse(type, reason, errs.map(describe).join('; '), asError());
    } else if (cm.has(type)) {
      cm.markTrue(type, PARENT_TRUE_REASON[type], trueMessage(type), asInfo());
    }
  }
}

function trueMessage(type: ParentConditionType): string {
  if (type === 'DependenciesReachable') return 'All dependencies are reachable';
  if (type === 'AuthValid') return 'Authentication is valid';
  return 'Configuration is valid';
}

/** how one component (or decorator-set condition) weighs in the overall state */
interface Contribution {
  type: string;
  state: ComponentState;
  reason: string;
  message: string;
}

export interface AutomaticInput {
  cm: ConditionManager;
  components: readonly NormalizedHealth[];
  /** planning and apply failures */
  otherErrors: readonly CategorizedError[];
  grace: GraceState;
  /** the overall state before this reconcile, for components held during the grace period */
  previousState?: ComponentState;
  /** DecorateStatus: runs after the component and parent conditions, before the roll-up */
  decorate?: () => void;
}

function isHeld(h: NormalizedHealth, grace: GraceState): boolean {
  if (!grace.withinGrace) return false;
  const infra = h.errors.some((e) => e.category === 'Infrastructure');
  return infra && !h.errors.some((e) => e.category !== 'Infrastructure' && CATEGORY_BEHAVIOUR[e.category].blocksApply);
}

function notReadyState(h: { state: ComponentState; dependencyType?: string }): ComponentState {
  if (h.dependencyType === 'Upstream') return isErrorState(h.state) || h.state === 'Pending' ? h.state : 'Pending';
  return isErrorState(h.state) || h.state === 'Pending' || h.state === 'Starting' ? h.state : 'Progressing';
}

/** automatic status: every condition and the overall state from component health; returns the state */
export function runAutomatic(input: AutomaticInput): ComponentState {
  const { cm, components, grace } = input;
  const errors = sourcedErrors(components, input.otherErrors);
  setParentConditions(cm, errors, grace);

  const contributions: Contribution[] = [];
  const reported = new Set<string>();
  for (const h of components) {
    const type = conditionTypeFor(h.component);
    reported.add(type);
    if (isHeld(h, grace)) {
      contributions.push(heldContribution(cm, h, type, input.previousState));
      continue;
    }
    setComponentCondition(cm, h, type);
    contributions.push(
      isReadyState(h.state)
        ? { type, state: 'Ready', reason: h.reason, message: h.message }
        : { type, state: notReadyState(h), reason: h.reason, message: h.message },
    );
  }
  // components that stopped being reported lose their condition (a decorator may set it again below)
  for (const type of cm.types()) if (isComponentConditionType(type) && !reported.has(type)) cm.delete(type);

  input.decorate?.();
  for (const type of cm.types()) {
    if (!isComponentConditionType(type) || reported.has(type)) continue;
    const c = cm.get(type)!;
    contributions.push({
      type,
      state: c.status === 'True' ? 'Ready' : 'Progressing',
      reason: c.reason,
      message: c.message,
    });
  }
  return rollUp(cm, contributions, errors, grace);
}

function heldContribution(
  cm: ConditionManager,
  h: NormalizedHealth,
  type: string,
  previous: ComponentState | undefined,
): Contribution {
  const before = cm.initial(type);
  if (!before) {
    // never observed: count it as not ready yet, without creating a condition during the grace period
    return {
      type,
      state: h.dependencyType === 'Upstream' ? 'Pending' : 'Progressing',
      reason: 'Waiting',
      message: 'waiting for the first successful observation',
    };
  }
  cm.keep(type);
  const { reason, message } = before;
  if (before.status === 'True') return { type, state: 'Ready', reason, message };
  if (before.status === 'Unknown')
    return { type, state: h.dependencyType === 'Upstream' ? 'Pending' : 'Progressing', reason, message };
  return { type, state: previous && isErrorState(previous) ? previous : 'Degraded', reason, message };
}

/** the DESIGN rule: True for Ready, Unknown while Progressing/Starting/Pending, False for error states */
function setComponentCondition(cm: ConditionManager, h: NormalizedHealth, type: string): void {
  // a component ready from the start is no news (an event per component per object was most of the
  // writes of a thousand services coming up); one that becomes ready after not being ready, or one that
  // asks to be announced (DefaultConfigNotFound), still gets its event
  if (isReadyState(h.state)) cm.markTrue(type, h.reason, h.message, asInfo(), ...(h.announce ? [] : [quietWhenNew()]));
  else if (isErrorState(h.state)) cm.markFalse(type, h.reason, h.message, errorReport(h.state));
  // a child this controller is still creating or starting is the normal course of things, not news: the
  // parent's own Progressing/Ready transitions say it once (it used to be an event per child per reconcile)
  else if (h.needsAction) cm.markUnknown(type, h.reason, h.message, asWarning());
  else if (h.dependencyType === 'Downstream') cm.markUnknown(type, h.reason, h.message, withDebugLog(), silent());
  else cm.markUnknown(type, h.reason, h.message, asInfo());
}

/**
 * NotAvailable is what the cluster offers, not a fault (a template for a GPU no node has): said once, at info,
 * on transition; Failed and Degraded need attention until fixed and are reported on every reconcile.
 */
function errorReport(state: ComponentState) {
  return state === 'NotAvailable' ? asInfo() : asError();
}

function isComponentConditionType(type: string): boolean {
  return type !== 'Ready' && type.endsWith('Ready') && !PARENT_TYPES.has(type);
}

const BLOCKING_READY_REASON: Partial<Record<ErrorCategory, string>> = {
  Auth: 'AuthError',
  InvalidSpec: 'InvalidSpec',
  MissingUpstreamDependency: 'ReferenceNotFound',
};

function rollUp(
  cm: ConditionManager,
  contributions: readonly Contribution[],
  errors: readonly SourcedError[],
  grace: GraceState,
): ComponentState {
  for (const category of BLOCKING_PRIORITY) {
    const first = errors.find((e) => e.error.category === category);
    if (!first) continue;
    // the error's own reason (ConfigNotFound, InvalidImageReference, …) says more than its category's
    cm.markFalse('Ready', first.error.reason || BLOCKING_READY_REASON[category]!, describe(first), asError());
    return 'Failed';
  }
  const infraAfterGrace = grace.infra && !grace.withinGrace;
  let state = worstState(contributions.map((c) => c.state));
  if (infraAfterGrace) state = worstState([state], 'Degraded');
  if (isReadyState(state)) {
    // ready at its first status write: the status says so, an event would only repeat it; ready after
    // having been not ready is a change and gets its event
    cm.markTrue('Ready', 'AllComponentsReady', 'All components are ready', asInfo(), quietWhenNew());
    return 'Ready';
  }
  if (isErrorState(state)) {
    const culprit = contributions.find((c) => c.state === state);
    if (culprit) {
      cm.markFalse(
        'Ready',
        culprit.reason,
        `Component ${culprit.type.slice(0, -'Ready'.length)} is not ready: ${culprit.message}`,
        errorReport(state),
      );
    } else {
      const infra = errors.find((e) => e.error.category === 'Infrastructure');
      cm.markFalse(
        'Ready',
        'InfrastructureError',
        infra ? describe(infra) : 'Dependencies are not reachable',
        asError(),
      );
    }
    return state;
  }
  const waiting = contributions
    .filter((c) => STATE_PRIORITY[c.state] < STATE_PRIORITY.Ready)
    .map((c) => c.type.slice(0, -'Ready'.length));
  const upstream = state === 'Pending';
  cm.markFalse(
    'Ready',
    upstream ? 'Pending' : 'Progressing',
    `${upstream ? 'Waiting for dependencies' : 'Waiting for components to become ready'}: ${waiting.join(', ')}`,
    asInfo(),
  );
  return state;
}

/** reads a stored overall status back as a state when it is one (kinds with their own names map them) */
export function asComponentState(value: unknown): ComponentState | undefined {
  return typeof value === 'string' && Object.hasOwn(STATE_PRIORITY, value) ? (value as ComponentState) : undefined;
}

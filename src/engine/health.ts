// ComponentHealth: what a controller reports about each thing its object depends on. The engine turns the
// list into `<Component>Ready` conditions, parent conditions, `Ready` and the overall status.

import { type CategorizedError, categorize } from './errors.ts';

/** Component and overall states, best first. `Running` exists for kinds that call Ready "Running". */
export const ComponentState = {
  Running: 'Running',
  Ready: 'Ready',
  Progressing: 'Progressing',
  Starting: 'Starting',
  Pending: 'Pending',
  Degraded: 'Degraded',
  NotAvailable: 'NotAvailable',
  Failed: 'Failed',
} as const;
export type ComponentState = (typeof ComponentState)[keyof typeof ComponentState];

/** higher is better; the overall status is the lowest-ranked state of all components ("worst wins") */
export const STATE_PRIORITY: Readonly<Record<ComponentState, number>> = {
  Running: 7,
  Ready: 6,
  Progressing: 5,
  Starting: 4,
  Pending: 3,
  Degraded: 2,
  NotAvailable: 1,
  Failed: 0,
};

export function worstState(states: Iterable<ComponentState>, initial: ComponentState = 'Ready'): ComponentState {
  let worst = initial;
  for (const s of states) if (STATE_PRIORITY[s] < STATE_PRIORITY[worst]) worst = s;
  return worst;
}

export function isReadyState(s: ComponentState): boolean {
  return s === 'Ready' || s === 'Running';
}

/** error states: their component condition is False (Failed and Degraded are logged as errors every reconcile; NotAvailable once, at info) */
export function isErrorState(s: ComponentState): boolean {
  return s === 'Failed' || s === 'Degraded' || s === 'NotAvailable';
}

/** Upstream: something the user references (not ready ⇒ Pending). Downstream: something we create (⇒ Progressing). */
export type DependencyType = 'Upstream' | 'Downstream';

export interface ChildRef {
  apiVersion?: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface ComponentHealth {
  /** condition type is `<component>Ready` */
  component: string;
  /** derived from `errors` when omitted */
  state?: ComponentState;
  reason?: string;
  message?: string;
  /** raw or categorised; the engine categorises them */
  errors?: readonly unknown[];
  dependencyType?: DependencyType;
  childRef?: ChildRef;
  /**
   * a Ready state worth a Normal event even when its condition first appears (DefaultConfigNotFound);
   * otherwise a component ready from the start gets no event, only its condition
   */
  announce?: boolean;
  /**
   * a wait only the user can end (an ambiguous selection, a pod no node can run): its Pending/Progressing
   * condition goes out as a Warning event, like a failure, instead of a Normal one
   */
  needsAction?: boolean;
}

/** what an inspector returns: a ComponentHealth whose component name the caller supplies */
export type HealthReport = Omit<ComponentHealth, 'component'>;

/** ComponentHealth after the engine filled in defaults and categorised the errors */
export interface NormalizedHealth {
  component: string;
  state: ComponentState;
  reason: string;
  message: string;
  errors: CategorizedError[];
  dependencyType?: DependencyType;
  childRef?: ChildRef;
  announce?: boolean;
  needsAction?: boolean;
}

/**
 * The state implied by a set of errors: none ⇒ Ready; Auth, InvalidSpec or ResourceExhaustion ⇒ Failed;
 * MissingUpstream or Infrastructure ⇒ Degraded; only MissingDownstream ⇒ Progressing.
 */
function deriveStateFromErrors(errors: readonly CategorizedError[]): ComponentState {
  if (errors.length === 0) return 'Ready';
  const cats = new Set(errors.map((e) => e.category));
  if (cats.has('Auth') || cats.has('InvalidSpec') || cats.has('ResourceExhaustion')) return 'Failed';
  if (cats.has('MissingUpstreamDependency') || cats.has('Infrastructure')) return 'Degraded';
  return 'Progressing';
}

const COMPONENT_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

export function normalizeHealth(h: ComponentHealth): NormalizedHealth {
  if (!COMPONENT_NAME.test(h.component)) {
    throw new Error(
      `component health: component name "${h.component}" must be alphanumeric and start with a letter (it becomes the condition type "${h.component}Ready")`,
    );
  }
  const errors = (h.errors ?? []).map(categorize);
  const first = errors[0];
  const state = h.state ?? deriveStateFromErrors(errors);
  const out: NormalizedHealth = {
    component: h.component,
    state,
    reason: h.reason || first?.reason || (isReadyState(state) ? 'Ready' : state),
    message: h.message ?? first?.message ?? '',
    errors,
  };
  if (h.dependencyType) out.dependencyType = h.dependencyType;
  if (h.childRef) out.childRef = h.childRef;
  if (h.announce) out.announce = true;
  if (h.needsAction) out.needsAction = true;
  return out;
}

export function conditionTypeFor(component: string): string {
  return `${component}Ready`;
}

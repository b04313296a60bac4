// The core controller's decision, pure: validate (again: the webhook may have been bypassed), select a
// provider, and produce exactly the status fields the core owns in docs/kubeairunway.md's ownership table —
// status.provider.{name, selectedReason}, conditions Validated and ProviderSelected — plus `phase: Pending`
// with a message while the deployment cannot proceed ("the controller will accept the resource and set
// status.phase: Pending with a descriptive message until validation passes"). Once a provider is selected
// the core stops asserting phase, and the provider's field manager owns it.
import {
  CONDITION_PROVIDER_SELECTED,
  CONDITION_RESOURCE_CREATED,
  CONDITION_VALIDATED,
  type InferenceProviderConfig,
  type ModelDeployment,
} from '../../../apis/kubeairunway/index.ts';
import { asWarning, type Condition, ConditionManager, quietWhenNew } from '../../../engine/conditions.ts';
import { providerReadiness, type SelectionResult, type SkippedRule, selectProvider } from '../selection/index.ts';
import { upstreamKey } from '../served-apis.ts';
import {
  admissionMessage,
  defaultModelDeployment,
  type ValidationIssue,
  validateModelDeployment,
} from '../validation/index.ts';

/** the part of ModelDeployment.status the core writes (server-side apply as kubeairunway-core) */
export interface CoreStatus {
  phase?: 'Pending';
  message?: string;
  provider?: { name: string; selectedReason: string };
  conditions: Condition[];
}

export interface CoreInputs {
  providers: readonly InferenceProviderConfig[];
  /** whether the upstream API a provider reports (status.upstreamCRDVersion, `/upstreamKind`) is served */
  apiServed: (groupVersion: string) => boolean;
  now: number;
  heartbeatStaleAfterMs?: number;
  /** what the core owned before, for stable lastTransitionTimes */
  previous: Partial<CoreStatus>;
}

export interface CoreDecision {
  status: CoreStatus;
  validation: { ok: boolean; message?: string };
  selection?: SelectionResult;
  skippedRules: SkippedRule[];
  /** no provider could be picked: selection depends on heartbeats, which change with time, not events */
  retrySelection: boolean;
}

/** what validation and selection say about a deployment: the expensive half (CEL), done once per reconcile */
export interface CoreJudgement {
  errors: ValidationIssue[];
  selection?: SelectionResult;
  /** the selected provider cannot act (stale heartbeat, not ready, unregistered): why, for ProviderUnavailable */
  unavailable?: string;
  /** nothing has been built for the deployment yet (no upstream resource reported) */
  unbuilt?: boolean;
}

/** The core's decision for `md`, with its conditions on a fresh ConditionManager over `inputs.previous`. */
export function planCoreStatus(md: ModelDeployment, inputs: CoreInputs): CoreDecision {
  const cm = new ConditionManager(inputs.previous.conditions ?? [], {
    now: () => inputs.now,
    ...(md.metadata.generation !== undefined ? { generation: md.metadata.generation } : {}),
  });
  return coreStatusFrom(judgeCore(md, inputs), inputs.previous, cm);
}

/** validate (the webhook may have been bypassed), then select, unless the spec is invalid */
export function judgeCore(md: ModelDeployment, inputs: CoreInputs): CoreJudgement {
  const defaulted = defaultModelDeployment(md);
  const result = validateModelDeployment(defaulted, undefined, {
    providers: inputs.providers,
    providerCrdInstalled: (name) => {
      // a provider that does not say which API it builds is not known to be installed (served-apis.ts)
      const key = upstreamKey(inputs.providers.find((p) => p.metadata.name === name));
      return key !== undefined && inputs.apiServed(key);
    },
  });
  if (result.errors.length > 0) return { errors: result.errors };
  const opts = {
    now: inputs.now,
    ...(inputs.heartbeatStaleAfterMs !== undefined ? { heartbeatStaleAfterMs: inputs.heartbeatStaleAfterMs } : {}),
  };
  const selection = selectProvider(defaulted, inputs.providers, opts);
  const chosen = selection.provider;
  if (!chosen || selection.reason === 'AutoSelected') return { errors: [], selection };
  // an earlier or explicit choice: is that provider still alive to act on it?
  const config = inputs.providers.find((p) => p.metadata.name === chosen);
  const readiness = config
    ? providerReadiness(config, inputs.now, opts.heartbeatStaleAfterMs)
    : { ready: false, reason: `no InferenceProviderConfig ${chosen} is registered; start its provider controller` };
  if (readiness.ready) return { errors: [], selection };
  const unavailable = `provider ${chosen} is unavailable: ${readiness.reason}`;
  const unbuilt = !hasBuilt(md);
  if (selection.reason === 'PreviouslySelected' && unbuilt) {
    // nothing to lose yet: choose again among the providers that are alive (the dead one is not selectable)
    const again = selectProvider({ spec: defaulted.spec }, inputs.providers, opts);
    const message = `${again.message}; ${unavailable}, and had built nothing for this deployment, so it was selected again`;
    return { errors: [], selection: { ...again, message }, unbuilt };
  }
  return { errors: [], selection, unavailable, unbuilt };
}

/** whether the selected provider has built anything for `md` (reported its resource or its creation) */
export function hasBuilt(md: ModelDeployment): boolean {
  return (
    Boolean(md.status?.provider?.resourceName) ||
    (md.status?.conditions ?? []).some((c) => c.type === CONDITION_RESOURCE_CREATED && c.status === 'True')
  );
}

/**
 * The status fields the core owns, from a judgement; conditions are set on `cm` (the engine's, in a
 * pipeline run, so their transitions become its events). Cheap: it may run twice per reconcile.
 */
export function coreStatusFrom(
  judgement: CoreJudgement,
  previous: Partial<CoreStatus>,
  cm: ConditionManager,
): CoreDecision {
  const inputs = { previous };
  const status: CoreStatus = { conditions: [] };
  const selection = judgement.selection;
  if (!selection) {
    const message = admissionMessage(judgement.errors);
    cm.markFalse(CONDITION_VALIDATED, 'ValidationFailed', message, asWarning());
    status.phase = 'Pending';
    status.message = message;
    // a previous choice stays recorded (sticky), but nothing new is selected for an invalid spec
    if (inputs.previous.provider) status.provider = inputs.previous.provider;
    keepOrDrop(cm, inputs.previous, CONDITION_PROVIDER_SELECTED);
    status.conditions = pick(cm, [CONDITION_VALIDATED, CONDITION_PROVIDER_SELECTED]);
    return { status, validation: { ok: false, message }, skippedRules: [], retrySelection: false };
  }
  // True at first sight is told by the status alone; a spec that becomes valid again is evented
  cm.markTrue(CONDITION_VALIDATED, 'ValidationSucceeded', 'spec passed validation', quietWhenNew());
  if (selection.provider && judgement.unavailable) {
    // the choice stands (something was built, or it was named explicitly) but nobody acts on it
    cm.markUnknown(CONDITION_PROVIDER_SELECTED, 'ProviderUnavailable', judgement.unavailable, asWarning());
    status.provider = inputs.previous.provider ?? { name: selection.provider, selectedReason: selection.message };
    if (judgement.unbuilt) {
      status.phase = 'Pending';
      status.message = judgement.unavailable;
    }
  } else if (
    selection.provider &&
    selection.reason === 'PreviouslySelected' &&
    inputs.previous.provider?.name === selection.provider &&
    cm.isTrue(CONDITION_PROVIDER_SELECTED)
  ) {
    // our own earlier choice: keep its recorded reason instead of rewriting it as "previously selected"
    cm.keep(CONDITION_PROVIDER_SELECTED);
    status.provider = inputs.previous.provider;
  } else if (selection.provider) {
    cm.markTrue(CONDITION_PROVIDER_SELECTED, selection.reason, selection.message, quietWhenNew());
    status.provider = { name: selection.provider, selectedReason: selection.message };
  } else {
    cm.markFalse(CONDITION_PROVIDER_SELECTED, selection.reason, selection.message, asWarning());
    status.phase = 'Pending';
    status.message = selection.message;
  }
  status.conditions = pick(cm, [CONDITION_VALIDATED, CONDITION_PROVIDER_SELECTED]);
  return {
    status,
    validation: { ok: true },
    selection,
    skippedRules: selection.skippedRules,
    retrySelection: !selection.provider || judgement.unavailable !== undefined,
  };
}

function keepOrDrop(cm: ConditionManager, previous: Partial<CoreStatus>, type: string): void {
  if (!previous.conditions?.some((c) => c.type === type)) cm.delete(type);
}

function pick(cm: ConditionManager, types: string[]): Condition[] {
  return types.map((t) => cm.get(t)).filter((c): c is Condition => c !== undefined);
}

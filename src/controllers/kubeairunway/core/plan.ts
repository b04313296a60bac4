// The core controller's decision, pure: validate (again: the webhook may have been bypassed), select a
// provider, and produce exactly the status fields the core owns in docs/kubeairunway.md's ownership table —
// status.provider.{name, selectedReason}, conditions Validated and ProviderSelected — plus `phase: Pending`
// with a message while the deployment cannot proceed ("the controller will accept the resource and set
// status.phase: Pending with a descriptive message until validation passes"), or while the selected provider
// has not written anything yet. Once the provider writes, its field manager owns the phase. While the
// provider's heartbeat is stale on something it built, the core also holds Ready at Unknown
// (docs/kubeairunway.md, "Provider readiness and heartbeats").
import {
  CONDITION_PROVIDER_SELECTED,
  CONDITION_READY,
  CONDITION_RESOURCE_CREATED,
  CONDITION_VALIDATED,
  HEARTBEAT_STALE_AFTER_MS,
  type InferenceProviderConfig,
  type ModelDeployment,
  providerFieldManager,
} from '../../../apis/kubeairunway/index.ts';
import { asWarning, type Condition, ConditionManager, quietWhenNew, silent } from '../../../engine/conditions.ts';
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
  /** `unavailable` because its heartbeat is stale: its process is gone, so nothing vouches for Ready */
  stale?: boolean;
  /** the selected provider is alive but has not written anything for the deployment yet: why it waits */
  awaiting?: string;
  /**
   * the provider in status.provider.name has written the deployment's status and its heartbeat is fresh: the
   * phase and message are its to say (it judges the spec too, and its words may differ from the core's, e.g.
   * Failed for an incompatible replica count the core refuses as invalid); were both to write them, each
   * force-apply would take them from the other and the two would rewrite the status in a loop
   */
  providerHoldsPhase?: boolean;
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
  const judgement = judgeSpecAndProvider(md, inputs);
  return providerHoldsPhase(md, inputs) ? { ...judgement, providerHoldsPhase: true } : judgement;
}

function providerHoldsPhase(md: ModelDeployment, inputs: CoreInputs): boolean {
  const name = md.status?.provider?.name;
  const config = name ? inputs.providers.find((p) => p.metadata.name === name) : undefined;
  if (!name || !config || !providerActed(md, name)) return false;
  return !providerReadiness(config, inputs.now, inputs.heartbeatStaleAfterMs ?? HEARTBEAT_STALE_AFTER_MS).stale;
}

function judgeSpecAndProvider(md: ModelDeployment, inputs: CoreInputs): CoreJudgement {
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
  if (!chosen) return { errors: [], selection };
  const config = inputs.providers.find((p) => p.metadata.name === chosen);
  const staleAfterMs = opts.heartbeatStaleAfterMs ?? HEARTBEAT_STALE_AFTER_MS;
  if (selection.reason === 'AutoSelected') return { errors: [], selection, ...awaiting(md, config, staleAfterMs) };
  // an earlier or explicit choice: is that provider still alive to act on it?
  const readiness = config
    ? providerReadiness(config, inputs.now, staleAfterMs)
    : { ready: false, reason: `no InferenceProviderConfig ${chosen} is registered; start its provider controller` };
  if (readiness.ready)
    return { errors: [], selection, ...awaiting(md, config, staleAfterMs, selection.reason === 'ExplicitSelection') };
  const unavailable = `provider ${chosen} is unavailable: ${readiness.reason}`;
  const unbuilt = !hasBuilt(md);
  if (selection.reason === 'PreviouslySelected' && unbuilt) {
    // nothing to lose yet: choose again among the providers that are alive (the dead one is not selectable)
    const again = selectProvider({ spec: defaulted.spec }, inputs.providers, opts);
    const message = `${again.message}; ${unavailable}, and had built nothing for this deployment, so it was selected again`;
    const next = inputs.providers.find((p) => p.metadata.name === again.provider);
    return { errors: [], selection: { ...again, message }, unbuilt, ...awaiting(md, next, staleAfterMs) };
  }
  return { errors: [], selection, unavailable, unbuilt, ...(readiness.stale ? { stale: true } : {}) };
}

/**
 * While the selected (live) provider has not written the deployment's status yet, the core says so: a
 * deployment is never left without a phase between selection and the provider's first word, and the
 * message says when a silent provider is given up on.
 */
function awaiting(
  md: ModelDeployment,
  config: InferenceProviderConfig | undefined,
  staleAfterMs: number,
  explicit = false,
): { awaiting?: string } {
  const name = config?.metadata.name;
  if (!name || providerActed(md, name)) return {};
  const beat = config.status?.lastHeartbeat;
  const limit = `${Math.round(staleAfterMs / 1000)}s`;
  // a provider named in the spec is never replaced: the message does not promise it
  const then = explicit
    ? `it is named in spec.provider.name, so the deployment waits for it even when it is silent for over ${limit}: then ProviderSelected says so`
    : `a provider silent for ${limit} is taken for dead, and a deployment it has not built is selected again`;
  return {
    awaiting: beat
      ? `waiting for provider ${name} to act on it (its last heartbeat at ${beat}; ${then})`
      : `waiting for provider ${name} to act on it`,
  };
}

/** whether provider `name` has written any of the deployment's status (its field manager's entry) */
function providerActed(md: ModelDeployment, name: string): boolean {
  const manager = providerFieldManager(name);
  return (md.metadata.managedFields ?? []).some((e) => e.manager === manager && e.subresource === 'status');
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
    leavePhaseToProvider(judgement, status);
    return { status, validation: { ok: false, message }, skippedRules: [], retrySelection: false };
  }
  // True at first sight is told by the status alone; a spec that becomes valid again is evented
  cm.markTrue(CONDITION_VALIDATED, 'ValidationSucceeded', 'spec passed validation', quietWhenNew());
  if (selection.provider && judgement.unavailable) markUnavailable(judgement, selection, previous, cm, status);
  else markSelection(selection, previous, cm, status);
  if (!(selection.provider && judgement.stale && !judgement.unbuilt)) giveBackReady(previous, cm);
  if (selection.provider && !judgement.unavailable && judgement.awaiting) {
    status.phase = 'Pending';
    status.message = judgement.awaiting;
  }
  status.conditions = pick(cm, [CONDITION_VALIDATED, CONDITION_PROVIDER_SELECTED, CONDITION_READY]);
  leavePhaseToProvider(judgement, status);
  return {
    status,
    validation: { ok: true },
    selection,
    skippedRules: selection.skippedRules,
    retrySelection: !selection.provider || judgement.unavailable !== undefined,
  };
}

/** a live provider that has spoken owns phase and message: the core says its part in its conditions only */
function leavePhaseToProvider(judgement: CoreJudgement, status: CoreStatus): void {
  if (!judgement.providerHoldsPhase) return;
  delete status.phase;
  delete status.message;
}

/** the choice stands (something was built, or it was named explicitly) but nobody acts on it */
function markUnavailable(
  judgement: CoreJudgement,
  selection: SelectionResult,
  previous: Partial<CoreStatus>,
  cm: ConditionManager,
  status: CoreStatus,
): void {
  const unavailable = judgement.unavailable ?? '';
  cm.markUnknown(CONDITION_PROVIDER_SELECTED, 'ProviderUnavailable', unavailable, asWarning());
  status.provider = previous.provider ?? { name: selection.provider ?? '', selectedReason: selection.message };
  if (judgement.unbuilt) {
    status.phase = 'Pending';
    status.message = unavailable;
  } else if (judgement.stale) {
    // a dead process cannot take back a Ready it wrote: the core holds it at Unknown until the provider runs
    // again, whose next status write takes the condition back (server-side apply, forced)
    const message = `${unavailable}; what it built may still serve, but nothing watches it until the provider runs again`;
    cm.markUnknown(CONDITION_READY, 'ProviderUnavailable', message, silent());
  }
}

/**
 * Ready is the provider's, except while its process is gone (markUnavailable). Dropping it from the core's
 * apply while the core still owns its status would delete the fields the core took and leave the entry
 * without a status: the core holds it until the provider's next status write has taken it back (the
 * provider rewrites it on its first reconcile, since it no longer owns it), then lets go of what is left.
 */
function giveBackReady(previous: Partial<CoreStatus>, cm: ConditionManager): void {
  const held = previous.conditions?.find((c) => c.type === CONDITION_READY);
  if (held?.status) cm.keep(CONDITION_READY);
  else cm.delete(CONDITION_READY);
}

/** a provider is chosen (or none could be): ProviderSelected and status.provider */
function markSelection(
  selection: SelectionResult,
  previous: Partial<CoreStatus>,
  cm: ConditionManager,
  status: CoreStatus,
): void {
  if (
    selection.provider &&
    selection.reason === 'PreviouslySelected' &&
    previous.provider?.name === selection.provider &&
    cm.isTrue(CONDITION_PROVIDER_SELECTED)
  ) {
    // our own earlier choice: keep its recorded reason instead of rewriting it as "previously selected"
    cm.keep(CONDITION_PROVIDER_SELECTED);
    status.provider = previous.provider;
  } else if (selection.provider) {
    cm.markTrue(CONDITION_PROVIDER_SELECTED, selection.reason, selection.message, quietWhenNew());
    status.provider = { name: selection.provider, selectedReason: selection.message };
  } else {
    cm.markFalse(CONDITION_PROVIDER_SELECTED, selection.reason, selection.message, asWarning());
    status.phase = 'Pending';
    status.message = selection.message;
  }
}

function keepOrDrop(cm: ConditionManager, previous: Partial<CoreStatus>, type: string): void {
  if (!previous.conditions?.some((c) => c.type === type)) cm.delete(type);
}

function pick(cm: ConditionManager, types: string[]): Condition[] {
  return types.map((t) => cm.get(t)).filter((c): c is Condition => c !== undefined);
}

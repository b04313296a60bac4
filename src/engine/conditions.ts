// ConditionManager: the conditions of one object during one reconcile. It is seeded with the conditions
// the object had, keeps lastTransitionTime unless status or reason changes, and remembers how each
// condition set in this reconcile wants to be reported, so events and logs go out exactly when docs/controllers.md
// says: on a status or reason transition (never on a message-only change), or on every reconcile for
// `asError`.

import type { Condition, ConditionStatus } from '@modelplane/apimachinery';

export type { Condition, ConditionStatus };

export type ObservabilityLevel = 'silent' | 'info' | 'warning' | 'error';

export interface ObservabilityConfig {
  level: ObservabilityLevel;
  /** report on every reconcile, not only on transitions */
  recurring: boolean;
  eventReason?: string;
  eventMessage?: string;
  logMessage?: string;
  /** log at debug level instead of info (info level only) */
  debugLog?: boolean;
  /** say nothing when the condition first appears, only when an existing one changes */
  quietWhenNew?: boolean;
}

export type ObservabilityOption = Partial<ObservabilityConfig>;

/** no event, no log */
export const silent = (): ObservabilityOption => ({ level: 'silent', recurring: false });
/** Normal event + info log on transition (the default) */
export const asInfo = (): ObservabilityOption => ({ level: 'info', recurring: false });
/** Warning event + error log on transition */
export const asWarning = (): ObservabilityOption => ({ level: 'warning', recurring: false });
/** Warning event + error log on every reconcile, for errors that need attention until fixed */
export const asError = (): ObservabilityOption => ({ level: 'error', recurring: true });
export const withEventReason = (eventReason: string): ObservabilityOption => ({ eventReason });
export const withDebugLog = (): ObservabilityOption => ({ debugLog: true });
export const quietWhenNew = (): ObservabilityOption => ({ quietWhenNew: true });

/** one condition set in this reconcile, with whether it transitioned and how to report it */
export interface ConditionObservation {
  condition: Condition;
  previous: Condition | undefined;
  transitioned: boolean;
  config: ObservabilityConfig;
}

export interface ConditionManagerOptions {
  /** current time in ms (inject a clock in tests) */
  now?: () => number;
  /** the object's metadata.generation, recorded as observedGeneration */
  generation?: number;
}

const REASON_RE = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const MAX_MESSAGE = 32_768;

/** metav1.Time: RFC 3339 in whole seconds */
export function conditionTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** condition reasons must match the apiserver's pattern; producers (gateways, kubelet) do not always comply */
export function sanitizeReason(reason: string): string {
  if (REASON_RE.test(reason) && reason.length <= 1024) return reason;
  const cleaned = reason
    .replace(/[^A-Za-z0-9_,:]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))
    .replace(/^[^A-Za-z]+/, '')
    .replace(/[,:]+$/, '')
    .slice(0, 1024);
  return cleaned || 'Unknown';
}

export class ConditionManager {
  private readonly original = new Map<string, Condition>();
  private readonly current = new Map<string, Condition>();
  private readonly setThisReconcile = new Map<string, ObservabilityConfig>();
  private readonly now: () => number;
  private readonly generation: number | undefined;

  constructor(existing: readonly Condition[] = [], opts: ConditionManagerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.generation = opts.generation;
    for (const c of existing) {
      if (!c || typeof c.type !== 'string') continue;
      this.original.set(c.type, { ...c });
      this.current.set(c.type, { ...c });
    }
  }

  get(type: string): Condition | undefined {
    const c = this.current.get(type);
    return c ? { ...c } : undefined;
  }

  has(type: string): boolean {
    return this.current.has(type);
  }

  isTrue(type: string): boolean {
    return this.current.get(type)?.status === 'True';
  }

  /** the condition as it was when the reconcile started */
  initial(type: string): Condition | undefined {
    const c = this.original.get(type);
    return c ? { ...c } : undefined;
  }

  /** all conditions, in the order they were first seen or added */
  list(): Condition[] {
    return [...this.current.values()].map((c) => ({ ...c }));
  }

  types(): string[] {
    return [...this.current.keys()];
  }

  /** was this condition set (marked) during this reconcile? */
  wasSet(type: string): boolean {
    return this.setThisReconcile.has(type);
  }

  markTrue(type: string, reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.set(type, 'True', reason, message, ...options);
  }

  markFalse(type: string, reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.set(type, 'False', reason, message, ...options);
  }

  markUnknown(type: string, reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.set(type, 'Unknown', reason, message, ...options);
  }

  set(type: string, status: ConditionStatus, reason: string, message: string, ...options: ObservabilityOption[]): void {
    if (!type) throw new Error('condition: type must not be empty');
    const r = sanitizeReason(reason);
    // compare against what the object had if this reconcile removed and re-added it
    const prev = this.current.get(type) ?? this.original.get(type);
    const transitioned = !prev || prev.status !== status || prev.reason !== r;
    const c: Condition = {
      type,
      status,
      reason: r,
      message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message,
      lastTransitionTime:
        transitioned || !prev?.lastTransitionTime ? conditionTime(this.now()) : prev.lastTransitionTime,
    };
    if (this.generation !== undefined) c.observedGeneration = this.generation;
    this.current.set(type, c);
    this.setThisReconcile.set(type, resolveConfig(options));
  }

  /** keeps a condition exactly as the object had it, counting it as set in this reconcile (silently) */
  keep(type: string): void {
    const orig = this.original.get(type);
    if (!orig) return;
    this.current.set(type, { ...orig });
    this.setThisReconcile.set(type, { level: 'silent', recurring: false });
  }

  delete(type: string): void {
    this.current.delete(type);
    this.setThisReconcile.delete(type);
  }

  /** what to report for this reconcile: every condition set in it, with its transition flag */
  observations(): ConditionObservation[] {
    const out: ConditionObservation[] = [];
    for (const [type, config] of this.setThisReconcile) {
      const condition = this.current.get(type);
      if (!condition) continue;
      const previous = this.original.get(type);
      const transitioned = !previous || previous.status !== condition.status || previous.reason !== condition.reason;
      out.push({ condition: { ...condition }, previous, transitioned, config });
    }
    return out;
  }
}

function resolveConfig(options: ObservabilityOption[]): ObservabilityConfig {
  const config: ObservabilityConfig = { level: 'info', recurring: false };
  for (const o of options) Object.assign(config, stripUndefined(o));
  return config;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** should this observation produce an event and a log line now? */
export function shouldReport(o: ConditionObservation): boolean {
  if (o.config.level === 'silent') return false;
  if (o.config.quietWhenNew && !o.previous) return false;
  return o.transitioned || o.config.recurring;
}

// Turns the condition observations of one reconcile into Kubernetes events and log lines.

import type { EventRecorder } from '@modelplane/runtime/events';
import type { LogFields } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type ConditionObservation, shouldReport } from './conditions.ts';

/** the slice of packages/runtime's Logger the engine uses (tests pass a recorder of lines) */
export interface EngineLogger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** a logger that drops everything (offline rendering, tests) */
export const SILENT_LOG: EngineLogger = { debug() {}, info() {}, warn() {}, error() {} };

function defaultNote(o: ConditionObservation): string {
  const c = o.condition;
  if (c.status === 'True') return `${c.type} is True`;
  return `${c.type} is ${c.status}: ${c.reason}`;
}

/**
 * Emits what the observations ask for. `events: false` writes only logs: used when the status could not
 * be persisted, so the transition will be seen (and evented) again by the next reconcile.
 */
export function reportObservations(
  observations: readonly ConditionObservation[],
  regarding: KubeObject,
  recorder: EventRecorder | undefined,
  log: EngineLogger | undefined,
  opts: { events: boolean },
): void {
  for (const o of observations) {
    if (!shouldReport(o)) continue;
    const c = o.condition;
    const { level } = o.config;
    const note = o.config.eventMessage ?? (c.message || defaultNote(o));
    if (opts.events && recorder) {
      recorder.event(regarding, level === 'info' ? 'Normal' : 'Warning', o.config.eventReason ?? c.reason, note);
    }
    if (!log) continue;
    const msg = o.config.logMessage ?? `condition ${c.type}=${c.status} (${c.reason})`;
    const fields: LogFields = { condition: c.type, status: c.status, reason: c.reason, message: c.message };
    if (o.previous) fields.previousStatus = o.previous.status;
    if (level === 'info') {
      if (o.config.debugLog) log.debug(msg, fields);
      else log.info(msg, fields);
    } else if (level === 'warning') {
      log.warn(msg, fields);
    } else {
      log.error(msg, fields);
    }
  }
}

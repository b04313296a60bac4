// A small helper for controllers that set their status by hand (the manual approach): one call sets the
// `Ready` condition and the overall status field together, so the two cannot disagree.

import { asError, asInfo, type ConditionManager, type ObservabilityOption } from './conditions.ts';
import type { ComponentState } from './health.ts';

export interface StatusFieldOptions {
  /** the status field holding the overall state (`status.status` by default); null = none */
  statusField?: string | null;
  /** maps an engine state to the kind's own vocabulary (AIMService: Progressing → Starting, Ready → Running) */
  mapState?: (state: ComponentState) => string;
}

export class StatusHelper {
  private readonly field: string | null;
  private readonly map: (state: ComponentState) => string;

  constructor(
    private readonly status: Record<string, unknown>,
    private readonly cm: ConditionManager,
    opts: StatusFieldOptions = {},
  ) {
    this.field = opts.statusField === undefined ? 'status' : opts.statusField;
    this.map = opts.mapState ?? ((s) => s);
  }

  /** sets only the overall status field */
  setState(state: ComponentState): void {
    if (this.field) this.status[this.field] = this.map(state);
  }

  ready(reason = 'AllComponentsReady', message = 'All components are ready', ...options: ObservabilityOption[]): void {
    this.cm.markTrue('Ready', reason, message, ...withDefault(options, asInfo()));
    this.setState('Ready');
  }

  progressing(reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.cm.markFalse('Ready', reason, message, ...withDefault(options, asInfo()));
    this.setState('Progressing');
  }

  pending(reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.cm.markFalse('Ready', reason, message, ...withDefault(options, asInfo()));
    this.setState('Pending');
  }

  degraded(reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.cm.markFalse('Ready', reason, message, ...withDefault(options, asError()));
    this.setState('Degraded');
  }

  notAvailable(reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.cm.markFalse('Ready', reason, message, ...withDefault(options, asError()));
    this.setState('NotAvailable');
  }

  failed(reason: string, message: string, ...options: ObservabilityOption[]): void {
    this.cm.markFalse('Ready', reason, message, ...withDefault(options, asError()));
    this.setState('Failed');
  }
}

function withDefault(options: ObservabilityOption[], fallback: ObservabilityOption): ObservabilityOption[] {
  return options.length > 0 ? options : [fallback];
}

// Compares the two backends' observations exchange by exchange and summarises them in the fidelity line:
// `fidelity: <same> of <total> exchanges identical (<area> <same>/<total>, …)`.
import { isDeepStrictEqual } from 'node:util';
import type { Observation, Step } from './steps.ts';

export interface Difference {
  id: string;
  what: string[];
  embedded: Observation;
  real: Observation;
}

export const exchangeId = (s: Step) => `${s.area}/${s.name}`;

function statusParts(o: Observation): { reason?: unknown; message?: unknown } {
  const b = o.body as any;
  return b && typeof b === 'object' && b.kind === 'Status' ? { reason: b.reason, message: b.message } : {};
}

/** what differs: the status code, the reason, the message, or other body fields */
export function differences(embedded: Observation, real: Observation): string[] {
  const out: string[] = [];
  if (embedded.status !== real.status) out.push(`status ${embedded.status} vs ${real.status}`);
  const [e, r] = [statusParts(embedded), statusParts(real)];
  if (e.reason !== r.reason) out.push(`reason ${String(e.reason)} vs ${String(r.reason)}`);
  if (e.message !== r.message) out.push('message');
  if (out.length === 0 && !isDeepStrictEqual(embedded.body, real.body)) out.push('body');
  return out;
}

export function fidelityLine(steps: Step[], diffs: Difference[]): string {
  const counted = steps.filter((s) => s.counted);
  const differing = new Set(diffs.map((d) => d.id));
  const areas = new Map<string, { same: number; total: number }>();
  for (const s of counted) {
    const a = areas.get(s.area) ?? { same: 0, total: 0 };
    a.total++;
    if (!differing.has(exchangeId(s))) a.same++;
    areas.set(s.area, a);
  }
  const parts = [...areas].map(([area, a]) => `${area} ${a.same}/${a.total}`);
  return `fidelity: ${counted.length - differing.size} of ${counted.length} exchanges identical (${parts.join(', ')})`;
}

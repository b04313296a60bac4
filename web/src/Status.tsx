// A state badge: symbol, word and colour, never colour alone (screen readers and colour-blind users).
import type { ResourceSummary } from './api.ts';

const SYMBOL = { ok: '✓', progress: '…', fail: '✗', idle: '·' } as const;

export function StatusBadge({ tone, state }: Pick<ResourceSummary, 'tone' | 'state'>) {
  return (
    <span className={`badge badge-${tone}`}>
      <span aria-hidden="true">{SYMBOL[tone]}</span> {state}
    </span>
  );
}

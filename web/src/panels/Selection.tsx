// Why this provider: every registered provider, whether it is ready and compatible, and each CEL rule with
// its priority and outcome, as the selection code evaluates them.
import type { SelectionPanel } from '../../../src/cli/dashboard/types.ts';
import { Table } from '../Table.tsx';

const HOW = {
  explicit: 'named explicitly in spec.provider.name',
  sticky: 'kept from an earlier choice (selection is sticky)',
  auto: 'chosen by the CEL selection rules',
  none: 'not selected',
} as const;

export function SelectionView({ panel }: { panel: SelectionPanel }) {
  const w = panel.wanted;
  return (
    <section aria-labelledby="h-selection" className="panel">
      <h2 id="h-selection">Provider selection</h2>
      <p>
        {panel.selected ? (
          <>
            Provider <strong>{panel.selected}</strong>: {HOW[panel.how]}.
          </>
        ) : (
          <>No provider selected yet: {panel.message}.</>
        )}
        {panel.selectedReason && (
          <>
            {' '}
            Recorded reason: <q>{panel.selectedReason}</q>.
          </>
        )}
      </p>
      <p>
        Looked for engine <code>{w.engine ?? '(none)'}</code>, {w.gpu ? 'GPU' : 'CPU only'}, serving mode{' '}
        <code>{w.mode}</code>.
        {panel.wouldSelect && panel.wouldSelect !== panel.selected && (
          <>
            {' '}
            The rules would pick <strong>{panel.wouldSelect}</strong> today.
          </>
        )}
      </p>
      <Table columns={['Provider', 'Ready', 'Compatible', 'Rules (priority: outcome)', 'Priority']}>
        {panel.providers.map((p) => (
          <tr key={p.name} className={p.chosen ? 'chosen' : undefined}>
            <th scope="row">
              {p.name}
              {p.chosen && <span className="chosen-tag"> (chosen)</span>}
            </th>
            <td>{p.ready ? 'yes' : `no: ${p.readyReason ?? ''}`}</td>
            <td>{p.compatible ? 'yes' : `no: ${p.compatibleReason ?? ''}`}</td>
            <td>
              {p.rules.length === 0 ? (
                'no rules'
              ) : (
                <ul className="rules">
                  {p.rules.map((r) => (
                    <li key={r.condition} className={`rule rule-${String(r.result)}`}>
                      <code>{r.condition}</code> — priority {r.priority}:{' '}
                      <strong>{r.result === 'error' ? `error (${r.error})` : String(r.result)}</strong>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>{p.priority}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

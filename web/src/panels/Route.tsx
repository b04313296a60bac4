// The AIMService's route: the path traffic takes and how it was rendered from the template.
import type { RoutePanel } from '../../../src/cli/dashboard/types.ts';
import { Table } from '../Table.tsx';

export function RouteView({ panel }: { panel: RoutePanel }) {
  return (
    <section aria-labelledby="h-route" className="panel">
      <h2 id="h-route">Route</h2>
      <dl className="facts">
        <dt>Routed path (status)</dt>
        <dd>
          <code>{panel.statusPath ?? '(none yet)'}</code>
        </dd>
        <dt>Routing</dt>
        <dd>{panel.enabled ? 'enabled' : 'off'}</dd>
        {panel.runtimeConfig && (
          <>
            <dt>Runtime config</dt>
            <dd>{panel.runtimeConfig}</dd>
          </>
        )}
        {panel.template && (
          <>
            <dt>Template</dt>
            <dd>
              <code>{panel.template}</code>
              {panel.source && <> (from {panel.source})</>}
            </dd>
          </>
        )}
        {!panel.template && panel.source && (
          <>
            <dt>Template</dt>
            <dd>{panel.source}</dd>
          </>
        )}
        {panel.renderedPath && (
          <>
            <dt>Rendered path</dt>
            <dd>
              <code>{panel.renderedPath}</code>
            </dd>
          </>
        )}
        {panel.gateway && (
          <>
            <dt>Gateway</dt>
            <dd>{panel.gateway}</dd>
          </>
        )}
      </dl>
      {panel.placeholders.length > 0 && (
        <Table caption="Placeholders" columns={['Expression', 'Value']}>
          {panel.placeholders.map((p) => (
            <tr key={p.expression}>
              <td>
                <code>{`{${p.expression}}`}</code>
              </td>
              <td>{p.value !== undefined ? <code>{p.value}</code> : <span className="error">{p.error}</span>}</td>
            </tr>
          ))}
        </Table>
      )}
      {panel.problem && (
        <p className="error" role="note">
          {panel.problem}
        </p>
      )}
    </section>
  );
}

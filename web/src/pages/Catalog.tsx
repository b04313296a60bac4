// The models catalog: every AIM model the cluster knows (and the model sources that list them), each with its
// service templates and the nodes whose GPUs a template fits, as the AIM controller judges it. "Deploy" opens
// the create form filled in for the model and the first template that fits.
import { useEffect, useState } from 'react';
import type { CatalogView, DeployPrefill } from '../../../src/cli/dashboard/types.ts';
import { resourceHref } from '../api.ts';
import { StatusBadge } from '../Status.tsx';
import { Table } from '../Table.tsx';

export const deployHref = (d: DeployPrefill) => `#/create?${new URLSearchParams({ ...d }).toString()}`;

export function CatalogPage() {
  const [view, setView] = useState<CatalogView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    fetch('/api/catalog')
      .then(async (r) =>
        r.ok ? setView((await r.json()) as CatalogView) : setError(`the dashboard answered ${r.status}`),
      )
      .catch((e: Error) => setError(e.message));
  }, []);
  if (error) return <p className="error">The catalog could not be read: {error}</p>;
  if (!view) return <p>Loading…</p>;
  return (
    <>
      <h1>Models</h1>
      <p className="summary">
        {view.models.length} AIM models; nodes with GPUs:{' '}
        {view.nodes
          .filter((n) => n.gpus.length > 0)
          .map((n) => `${n.name} (${n.gpus.join(', ')})`)
          .join(', ') || 'none'}
        .
      </p>
      {view.models.length === 0 && <p>No AIM models are visible.</p>}
      {view.models.map((m) => (
        <section key={m.key} className="panel catalog-model" aria-labelledby={`m-${m.key}`} data-model={m.name}>
          <h2 id={`m-${m.key}`}>
            <a href={resourceHref(m.key)}>{m.modelId}</a> <StatusBadge tone={m.tone} state={m.state} />
          </h2>
          <p>
            {m.kind} {m.namespace ? `${m.namespace}/` : ''}
            {m.name} · image <code>{m.image}</code> ·{' '}
            <a className="deploy" href={deployHref(m.deploy)}>
              Deploy {m.modelId}
            </a>
          </p>
          {m.templates.length === 0 ? (
            <p>No service templates yet.</p>
          ) : (
            <Table columns={['Template', 'Hardware', 'State', 'Fits on nodes', 'Deploy']}>
              {m.templates.map((t) => (
                <tr key={t.key} data-template={t.name}>
                  <td>
                    <a href={resourceHref(t.key)}>{t.name}</a>
                  </td>
                  <td>{t.hardware}</td>
                  <td>
                    <StatusBadge tone={t.tone} state={t.state} />
                  </td>
                  <td>{t.fits.length > 0 ? t.fits.join(', ') : 'no node has this GPU'}</td>
                  <td>
                    {t.fits.length > 0 ? (
                      <a href={deployHref(t.deploy)} aria-label={`Deploy ${m.modelId} on ${t.hardware}`}>
                        Deploy
                      </a>
                    ) : (
                      '-'
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </section>
      ))}
      <h2>Model sources</h2>
      {view.sources.length === 0 ? (
        <p>No AIMClusterModelSource is visible.</p>
      ) : (
        <Table columns={['Source', 'Registry', 'State', 'Models found']}>
          {view.sources.map((s) => (
            <tr key={s.key}>
              <td>
                <a href={resourceHref(s.key)}>{s.name}</a>
              </td>
              <td>{s.registry}</td>
              <td>
                <StatusBadge tone={s.tone} state={s.state} />
              </td>
              <td>{s.models}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

// The dashboard's shell: header (cluster, user, live indicator), navigation, and a hash router over the
// overview, a resource's page and the ModelDeployment form.
import { useEffect, useState } from 'react';
import { type Connection, useOverview } from './api.ts';
import { CatalogPage } from './pages/Catalog.tsx';
import { CreatePage } from './pages/Create.tsx';
import { DetailPage } from './pages/Detail.tsx';
import { OverviewPage } from './pages/Overview.tsx';

function useHash(): string {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function LiveBadge({ connection }: { connection: Connection }) {
  const text = connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span className={`live live-${connection}`} role="status" aria-live="polite">
      <span aria-hidden="true">●</span> {text}
    </span>
  );
}

export function App() {
  const hash = useHash();
  const overview = useOverview();
  const detailKey = hash.startsWith('#/r/') ? decodeURIComponent(hash.slice(4)) : undefined;
  const page = detailKey
    ? 'detail'
    : hash === '#/create' || hash.startsWith('#/create?')
      ? 'create'
      : hash === '#/models'
        ? 'models'
        : 'overview';
  // the catalog's "deploy" links carry the form's starting values after `?`
  const prefill = page === 'create' ? new URLSearchParams(hash.slice('#/create?'.length)) : undefined;
  return (
    <>
      <header className="top">
        <a className="brand" href="#/">
          modelplane
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={page === 'overview' ? 'page' : undefined}>
            Overview
          </a>
          <a href="#/models" aria-current={page === 'models' ? 'page' : undefined}>
            Models
          </a>
          {!overview.info?.readOnly && (
            <a href="#/create" aria-current={page === 'create' ? 'page' : undefined}>
              Create ModelDeployment
            </a>
          )}
        </nav>
        <span className="who">{overview.info ? `${overview.info.user} @ ${overview.info.cluster}` : ''}</span>
        <LiveBadge connection={overview.connection} />
      </header>
      <main>
        {page === 'overview' && <OverviewPage overview={overview} />}
        {page === 'detail' && detailKey && <DetailPage key={detailKey} resourceKey={detailKey} />}
        {page === 'create' && <CreatePage key={hash} prefill={prefill} />}
        {page === 'models' && <CatalogPage />}
      </main>
    </>
  );
}

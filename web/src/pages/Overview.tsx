// The main page: every modelplane resource, grouped by kind (the kinds people deploy first), one row each
// with its state, reason and the kind's key fact, updated live from the backend's stream.
import { useEffect, useMemo, useRef, useState } from 'react';
import { age, type Overview, type ResourceSummary, resourceHref } from '../api.ts';
import { StatusBadge } from '../Status.tsx';

const PRIMARY = ['ModelDeployment', 'AIMService', 'LlamaStackDistribution', 'VariantAutoscaling'];

function groupByKind(resources: Iterable<ResourceSummary>, filter: string): Map<string, ResourceSummary[]> {
  const f = filter.trim().toLowerCase();
  const groups = new Map<string, ResourceSummary[]>();
  for (const r of resources) {
    if (f && !`${r.kind} ${r.namespace}/${r.name} ${r.state} ${r.reason} ${r.detail ?? ''}`.toLowerCase().includes(f))
      continue;
    let g = groups.get(r.kind);
    if (!g) groups.set(r.kind, (g = []));
    g.push(r);
  }
  for (const g of groups.values())
    g.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  return groups;
}

function kindOrder(kinds: string[]): string[] {
  return [...kinds].sort((a, b) => {
    const pa = PRIMARY.indexOf(a);
    const pb = PRIMARY.indexOf(b);
    return (pa < 0 ? 99 : pa) - (pb < 0 ? 99 : pb) || a.localeCompare(b);
  });
}

/** rows shown per kind until the user asks for all: a screenful or two paints fast with thousands of objects */
const PAGE = 100;

function KindTable({ kind, rows }: { kind: string; rows: ResourceSummary[] }) {
  const [all, setAll] = useState(false);
  const ready = rows.filter((r) => r.ready).length;
  const id = `kind-${kind}`;
  // the ones that need attention first, then by namespace and name
  const shown =
    all || rows.length <= PAGE
      ? rows
      : [...rows.filter((r) => !r.ready), ...rows.filter((r) => r.ready)].slice(0, PAGE);
  return (
    <section className="kind" aria-labelledby={id}>
      <h2 id={id}>
        {kind}{' '}
        <span className="count">
          {ready}/{rows.length} ready
        </span>
      </h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Namespace</th>
            <th scope="col">State</th>
            <th scope="col">Reason</th>
            <th scope="col">Details</th>
            <th scope="col">Age</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.key} data-key={r.key}>
              <td>
                <a href={resourceHref(r.key)}>{r.name}</a>
              </td>
              <td>{r.namespace || '-'}</td>
              <td>
                <StatusBadge tone={r.tone} state={r.state} />
              </td>
              <td>{r.reason || '-'}</td>
              <td>{r.detail ?? ''}</td>
              <td>{age(r.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < rows.length && (
        <button type="button" className="more" onClick={() => setAll(true)}>
          Show all {rows.length} {kind}s ({rows.length - shown.length} more)
        </button>
      )}
    </section>
  );
}

export function OverviewPage({ overview }: { overview: Overview }) {
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => groupByKind(overview.resources.values(), filter), [overview.resources, filter]);
  const loaded = overview.info !== undefined;
  const marked = useRef(false);
  useEffect(() => {
    // the benchmark and the browser tests wait for this: the first snapshot is on screen
    if (loaded && !marked.current) {
      marked.current = true;
      performance.mark('modelplane:overview-rendered');
      // the frame after the commit is the one that paints it: that is when the page is meaningful
      requestAnimationFrame(() =>
        setTimeout(() => {
          performance.mark('modelplane:overview-painted');
          document.body.dataset.overviewRendered = 'true';
        }, 0),
      );
    }
  }, [loaded]);
  const kinds = kindOrder([...groups.keys()]);
  const total = overview.resources.size;
  const notReady = [...overview.resources.values()].filter((r) => !r.ready).length;
  return (
    <>
      <h1>Everything modelplane serves</h1>
      <p className="summary">
        {loaded ? `${total} resources, ${total - notReady} ready, ${notReady} not ready` : 'Loading…'}
      </p>
      {overview.info && overview.info.hidden.length > 0 && (
        <p className="note">Not visible with your credentials: {overview.info.hidden.join(', ')}</p>
      )}
      <div className="toolbar">
        <label htmlFor="filter">Filter</label>
        <input
          id="filter"
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="name, namespace, state…"
        />
      </div>
      {loaded && kinds.length === 0 && <p>No modelplane resources{filter ? ' match the filter' : ' yet'}.</p>}
      {kinds.map((k) => (
        <KindTable key={k} kind={k} rows={groups.get(k)!} />
      ))}
    </>
  );
}

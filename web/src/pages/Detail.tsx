// One resource's page: state, the kind's own panel (provider choice, route, generated config, autoscaler
// chart), conditions, children, events and the stored object; live from the backend's stream.
import { stringify } from 'yaml';
import type { ChildView, ConditionView, EventView, Panel, PodView } from '../../../src/cli/dashboard/types.ts';
import { age, resourceHref, useResource } from '../api.ts';
import { AutoscalerChart } from '../panels/Autoscaler.tsx';
import { ConfigView } from '../panels/Config.tsx';
import { PodLogs } from '../panels/Logs.tsx';
import { RouteView } from '../panels/Route.tsx';
import { SelectionView } from '../panels/Selection.tsx';
import { TryView } from '../panels/Try.tsx';
import { StatusBadge } from '../Status.tsx';
import { ResourceLink, Table } from '../Table.tsx';

function Conditions({ conditions }: { conditions: ConditionView[] }) {
  if (conditions.length === 0) return <p>No conditions reported.</p>;
  return (
    <Table columns={['Type', 'Status', 'Reason', 'Message', 'Since']}>
      {conditions.map((c) => (
        <tr key={c.type}>
          <td>{c.type}</td>
          <td>
            <StatusBadge
              tone={c.status === 'True' ? 'ok' : c.status === 'False' ? 'fail' : 'progress'}
              state={c.status}
            />
          </td>
          <td>{c.reason ?? '-'}</td>
          <td className="message">{c.message ?? ''}</td>
          <td>{age(c.lastTransitionTime)}</td>
        </tr>
      ))}
    </Table>
  );
}

function Related({ items, empty }: { items: ChildView[]; empty: string }) {
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <Table columns={['Kind', 'Name', 'State', 'Reason']}>
      {items.map((c) => (
        <tr key={`${c.kind}/${c.namespace}/${c.name}`} data-kind={c.kind}>
          <td>{c.kind}</td>
          <td>
            <ResourceLink name={c.name} resourceKey={c.key} />
          </td>
          <td>
            <StatusBadge tone={c.tone} state={c.state} />
          </td>
          <td>{c.reason || '-'}</td>
        </tr>
      ))}
    </Table>
  );
}

function Pods({ pods }: { pods: PodView[] }) {
  if (pods.length === 0) return <p>No pods of this resource are visible.</p>;
  return (
    <Table className="pods" columns={['Pod', 'Phase', 'Ready', 'Node', 'Restarts', 'Why not running', 'Age']}>
      {pods.map((p) => (
        <tr key={p.key} data-pod={p.name}>
          <td>
            <a href={resourceHref(p.key)}>{p.name}</a>
          </td>
          <td>
            <StatusBadge tone={p.ready ? 'ok' : p.reason ? 'fail' : 'progress'} state={p.phase} />
          </td>
          <td>{p.ready ? 'yes' : 'no'}</td>
          <td>{p.node || '-'}</td>
          <td>{p.restarts}</td>
          <td className="message">{p.reason ?? '-'}</td>
          <td>{age(p.createdAt)}</td>
        </tr>
      ))}
    </Table>
  );
}

function Events({ events }: { events: EventView[] }) {
  if (events.length === 0) return <p>No events.</p>;
  return (
    <Table columns={['Type', 'Object', 'Reason', 'Message', 'Count', 'Last seen', 'From']}>
      {events.map((e) => (
        <tr
          key={`${e.object ?? ''}-${e.reason}-${e.lastSeen}-${e.message}`}
          className={e.type === 'Warning' ? 'warning' : undefined}
        >
          <td>{e.type}</td>
          <td>{e.object ?? 'this'}</td>
          <td>{e.reason}</td>
          <td className="message">{e.message}</td>
          <td>{e.count}</td>
          <td>{age(e.lastSeen)}</td>
          <td>{e.source}</td>
        </tr>
      ))}
    </Table>
  );
}

function PanelView({ panel, resourceKey }: { panel: Panel; resourceKey: string }) {
  switch (panel.kind) {
    case 'selection':
      return <SelectionView panel={panel} />;
    case 'route':
      return <RouteView panel={panel} />;
    case 'config':
      return <ConfigView panel={panel} />;
    case 'try':
      return <TryView panel={panel} resourceKey={resourceKey} />;
    case 'autoscaler':
      return <AutoscalerChart panel={panel} resourceKey={resourceKey} />;
    case 'explain':
      // the paragraph `modelplane explain aimsvc/NAME` prints
      return (
        <section aria-labelledby="h-explain" className="panel">
          <h2 id="h-explain">{panel.running ? 'Running' : 'Why is this not Running'}</h2>
          <p className="explain">{panel.text}</p>
        </section>
      );
    case 'chain':
      return (
        <section aria-labelledby="h-chain" className="panel">
          <h2 id="h-chain">Resolved model chain</h2>
          <Table columns={['Role', 'Kind', 'Name', 'State']}>
            {panel.links.map((l) => (
              <tr key={l.role}>
                <td>{l.role}</td>
                <td>{l.kind}</td>
                <td>
                  <ResourceLink name={l.name} resourceKey={l.key} />
                </td>
                <td>
                  <StatusBadge tone={l.tone} state={l.state} />
                </td>
              </tr>
            ))}
          </Table>
        </section>
      );
  }
}

function ResourceTitle({ kind, namespace, name }: { kind: string; namespace?: string; name: string }) {
  return (
    <h1>
      {kind} {namespace ? `${namespace}/` : ''}
      {name}
    </h1>
  );
}

export function DetailPage({ resourceKey }: { resourceKey: string }) {
  const { detail, gone } = useResource(resourceKey);
  const [, kind = '', namespace = '', name = ''] = resourceKey.split('/');
  if (gone)
    return (
      <>
        <ResourceTitle kind={kind} namespace={namespace} name={name} />
        <p role="alert">This resource does not exist (any more), or your credentials cannot see it.</p>
      </>
    );
  if (!detail)
    return (
      <>
        <ResourceTitle kind={kind} namespace={namespace} name={name} />
        <p>Loading…</p>
      </>
    );
  const s = detail.summary;
  return (
    <article className="detail" data-key={s.key}>
      <p className="crumbs">
        <a href="#/">Overview</a> / {s.kind}
        {detail.owners.map((o) => (
          <span key={`${o.kind}/${o.name}`}>
            {' '}
            · owned by {o.kind} <ResourceLink name={o.name} resourceKey={o.key} />
          </span>
        ))}
      </p>
      <ResourceTitle kind={s.kind} namespace={s.namespace} name={s.name} />
      <p className="headline">
        <StatusBadge tone={s.tone} state={s.state} /> {s.reason && <span className="reason">{s.reason}</span>}{' '}
        {s.detail && <span className="note-inline">{s.detail}</span>}
      </p>
      {detail.panels.map((p) => (
        <PanelView key={`${p.kind}-${p.kind === 'config' ? p.title : ''}`} panel={p} resourceKey={s.key} />
      ))}
      {s.kind === 'Pod' && <PodLogs podKey={s.key} />}
      {detail.pods.length > 0 || s.kind !== 'Pod' ? (
        <section aria-labelledby="h-pods">
          <h2 id="h-pods">Pods</h2>
          <Pods pods={detail.pods} />
        </section>
      ) : null}
      <section aria-labelledby="h-conditions">
        <h2 id="h-conditions">Conditions</h2>
        <Conditions conditions={detail.conditions} />
      </section>
      <section aria-labelledby="h-children">
        <h2 id="h-children">Children</h2>
        <Related items={detail.children} empty="No objects owned by this resource are visible." />
      </section>
      {detail.owners.length > 0 && (
        <section aria-labelledby="h-owners">
          <h2 id="h-owners">Owned by</h2>
          <Related items={detail.owners} empty="" />
        </section>
      )}
      <section aria-labelledby="h-events">
        <h2 id="h-events">Events (this resource and its children)</h2>
        <Events events={detail.events} />
      </section>
      <section aria-labelledby="h-object">
        <h2 id="h-object">Stored object</h2>
        <details>
          <summary>Show the object as stored (YAML)</summary>
          <pre className="yaml">{stringify(detail.object)}</pre>
          {detail.managedFields.length > 0 && (
            <details className="managed">
              <summary>metadata.managedFields: {detail.managedFields.length} entries (who wrote which fields)</summary>
              <pre>{stringify(detail.managedFields)}</pre>
            </details>
          )}
        </details>
      </section>
    </article>
  );
}

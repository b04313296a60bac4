// The dashboard's tables: one header of column names and the caller's rows, so every table has the same
// markup (column headers with scope="col", which screen readers use to name each cell) without each page
// spelling it out again.
import type { ReactNode } from 'react';
import { resourceHref } from './api.ts';

export function Table({
  columns,
  caption,
  className,
  children,
}: {
  columns: readonly string[];
  caption?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <table className={className}>
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A resource's name, linked to its page when the dashboard knows its key (it may be gone or unreadable). */
export function ResourceLink({ name, resourceKey }: { name: string; resourceKey?: string }) {
  return resourceKey ? <a href={resourceHref(resourceKey)}>{name}</a> : name;
}

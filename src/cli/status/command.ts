// What `modelplane status` runs (its flags are in ../status.ts): lists every object of modelplane's served
// kinds (found by discovery, so kinds not installed are simply absent) and prints them once, or keeps the
// view live from watches.
import { readFileSync } from 'node:fs';
import { isForbidden, KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { kindRef } from '@modelplane/runtime/meta';
import { discoverModelplaneKinds } from '../view/kinds.ts';
import { renderRows } from '../view/render.ts';
import { type ResourceRow, rowOf, sortRows } from '../view/rows.ts';
import { TerminalView } from '../view/terminal.ts';
import { ResourceWatcher } from '../view/watch.ts';
import type { StatusOptions } from './options.ts';

export interface StatusListing {
  rows: ResourceRow[];
  /** kinds the credentials may not list, named so the user knows what is missing from the view */
  forbidden: string[];
}

/** one list per served modelplane kind (in `namespace`, or all namespaces) */
export async function listStatusRows(client: KubeClient, namespace?: string): Promise<StatusListing> {
  const rows: ResourceRow[] = [];
  const forbidden: string[] = [];
  for (const m of await discoverModelplaneKinds(client)) {
    if (namespace && !m.namespaced) continue;
    try {
      const list = await client.list(kindRef(m.apiVersion, m.kind), m.namespaced && namespace ? { namespace } : {});
      for (const obj of list.items) rows.push(rowOf({ ...obj, apiVersion: m.apiVersion, kind: m.kind }));
    } catch (err) {
      if (!isForbidden(err)) throw err;
      forbidden.push(`${m.resource}.${m.group}`);
    }
  }
  return { rows: sortRows(rows), forbidden };
}

/** the text `modelplane status` prints: the rows, or a sentence saying there are none, and what was not readable */
export function renderStatus(
  listing: StatusListing,
  namespace: string | undefined,
  opts: { color?: boolean; width?: number; now?: number } = {},
): string {
  const where = namespace ? `in namespace ${namespace}` : 'in any namespace';
  const lines = listing.rows.length > 0 ? renderRows(listing.rows, opts) : [`No modelplane resources found ${where}.`];
  if (listing.forbidden.length > 0)
    lines.push(`(not allowed to list ${listing.forbidden.join(', ')} with these credentials)`);
  return `${lines.join('\n')}\n`;
}

/** prints the listing once, or keeps it live (--watch) until SIGINT */
export async function runStatus(opts: StatusOptions): Promise<void> {
  const log = new Logger({ component: 'status' }, 'silent');
  let client: KubeClient;
  try {
    client = await KubeClient.create(opts.kubeconfig ? readFileSync(opts.kubeconfig, 'utf8') : undefined);
  } catch (err) {
    process.stderr.write(
      `modelplane status: cannot load the kubeconfig${opts.kubeconfig ? ` ${opts.kubeconfig}` : ''}: ${(err as Error).message} (pass --kubeconfig FILE)\n`,
    );
    process.exit(2);
  }
  try {
    if (!opts.watch) {
      process.stdout.write(
        renderStatus(await listStatusRows(client, opts.namespace), opts.namespace, {
          color: process.stdout.isTTY,
          width: process.stdout.columns,
        }),
      );
      client.close();
      return;
    }
    const view = new TerminalView(process.stdout);
    let watcher: ResourceWatcher | undefined;
    const show = () => view.update({ rows: watcher?.rows() ?? [] });
    watcher = await ResourceWatcher.start({
      client,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      logger: log,
      onChange: show,
    });
    show();
    process.on('SIGINT', () => {
      view.stop();
      process.exit(0);
    });
  } catch (err) {
    process.stderr.write(`modelplane status: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

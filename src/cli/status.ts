// `modelplane status`: the same one-line-per-resource view `modelplane dev` shows, printed once (or kept
// live with --watch) for any cluster the kubeconfig reaches, with the user's own credentials. Lists every
// object of modelplane's served kinds (found by discovery, so kinds not installed are simply absent).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isForbidden, kindRef, KubeClient, Logger } from '../kube/index.ts';
import { discoverModelplaneKinds } from './view/kinds.ts';
import { renderRows } from './view/render.ts';
import { type ResourceRow, rowOf, sortRows } from './view/rows.ts';
import { TerminalView } from './view/terminal.ts';
import { ResourceWatcher } from './view/watch.ts';

interface StatusOptions {
  kubeconfig?: string;
  namespace?: string;
  watch?: boolean;
}

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

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      "Print every AIMService, ModelDeployment, LlamaStackDistribution, VariantAutoscaling (and the rest of modelplane's kinds) with its state and reason, one line each.",
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option('-n, --namespace <ns>', 'only this namespace (default: all namespaces)')
    .option('-w, --watch', 'keep the view open and update it from watches')
    .action(async (opts: StatusOptions) => {
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
    });
}

// The live view `modelplane dev` shows once the examples are applied: one line per resource from watches,
// a progress line while the examples converge, then (after they are Ready) the view stays live for
// whatever else the user creates.
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import type { TerminalView } from '../view/terminal.ts';
import { ResourceWatcher, type WatchedRef } from '../view/watch.ts';

export interface LiveViewOptions {
  client: KubeClient;
  view: TerminalView;
  /** the applied examples: the wait is over when all of them are Ready */
  refs: readonly WatchedRef[];
  /** milliseconds to wait (Infinity: no limit) */
  timeoutMs: number;
  logger: Logger;
}

export interface LiveView {
  /** resolves true once every ref is Ready, false when the timeout passed first */
  ready: Promise<boolean>;
  stop(): Promise<void>;
}

export async function startLiveView(opts: LiveViewOptions): Promise<LiveView> {
  const started = Date.now();
  let waiting = true;
  let settle!: (ok: boolean) => void;
  const ready = new Promise<boolean>((r) => (settle = r));
  let watcher: ResourceWatcher | undefined;
  const refresh = () => {
    if (!watcher) return;
    const rows = watcher.rows();
    const done = watcher.refsReady();
    const elapsedMs = Date.now() - started;
    const refKinds = new Set(opts.refs.map((r) => `${r.kind}|${r.namespace}|${r.name}`));
    const awaited = rows.filter((r) => refKinds.has(`${r.kind}|${r.namespace}|${r.name}`));
    opts.view.update({
      rows,
      awaited,
      ...(waiting
        ? {
            progress: {
              ready: awaited.filter((r) => r.ready).length,
              total: awaited.length,
              elapsedMs,
              timeoutMs: opts.timeoutMs,
            },
          }
        : {}),
    });
    if (waiting && (done || elapsedMs > opts.timeoutMs)) {
      waiting = false;
      opts.view.update({ rows });
      settle(done);
    }
  };
  watcher = await ResourceWatcher.start({
    client: opts.client,
    refs: opts.refs,
    logger: opts.logger,
    onChange: refresh,
  });
  // the clock advances without events: progress and the timeout need a tick
  const tick = setInterval(refresh, 1000);
  refresh();
  return {
    ready,
    async stop() {
      clearInterval(tick);
      opts.view.stop();
      await watcher?.stop();
    },
  };
}

// Polls the applied examples and shows their status until all are Ready (or the timeout passes).
import type { KubeClient, KubeObject } from '../../kube/index.ts';
import type { AppliedRef } from './examples.ts';
import { readinessOf } from './readiness.ts';
import { type Row, StatusDisplay } from './status-table.ts';

export async function watchUntilReady(client: KubeClient, refs: AppliedRef[], opts: { timeoutMs: number; out: NodeJS.WriteStream; intervalMs?: number }): Promise<boolean> {
  const display = new StatusDisplay(opts.out);
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 500;
  for (;;) {
    const rows: Row[] = [];
    for (const ref of refs) {
      let obj: KubeObject | undefined;
      try {
        obj = await client.getOrUndefined({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.name, ref.namespace || undefined);
      } catch (e) {
        rows.push({ kind: ref.kind, namespace: ref.namespace, name: ref.name, readiness: { ready: false, status: 'Unknown', reason: (e as Error).message } });
        continue;
      }
      rows.push({
        kind: ref.kind, namespace: ref.namespace, name: ref.name,
        readiness: obj ? readinessOf(obj) : { ready: false, status: 'Missing', reason: 'not found' },
        ...(obj?.metadata.creationTimestamp ? { createdAt: obj.metadata.creationTimestamp } : {}),
      });
    }
    display.show(rows);
    if (rows.every((r) => r.readiness.ready)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, interval));
  }
}

// The live status table `modelplane dev` shows while the quickstart converges: kind, namespace, name,
// status, reason, age. Redraws in place on a terminal; prints only changed rows otherwise (CI logs).
import { humanDuration as humanAge } from '../../apiserver/builtin/printers/index.ts';
import type { Readiness } from './readiness.ts';

export interface Row {
  kind: string;
  namespace: string;
  name: string;
  readiness: Readiness;
  createdAt?: string;
}

const HEADERS = ['KIND', 'NAMESPACE', 'NAME', 'STATUS', 'REASON', 'AGE'];

export function renderTable(rows: Row[], now = Date.now()): string {
  const cells = rows.map((r) => [r.kind, r.namespace || '-', r.name, r.readiness.status, r.readiness.reason || '-', r.createdAt ? humanAge(now - Date.parse(r.createdAt)) : '-']);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join('   ').trimEnd();
  return [line(HEADERS), ...cells.map(line)].join('\n');
}

export class StatusDisplay {
  private lastLines = 0;
  private lastSeen = new Map<string, string>();

  constructor(private readonly out: NodeJS.WriteStream) {}

  show(rows: Row[]): void {
    if (this.out.isTTY) {
      const text = renderTable(rows);
      if (this.lastLines > 0) this.out.write(`\x1b[${this.lastLines}A\x1b[0J`);
      this.out.write(`${text}\n`);
      this.lastLines = text.split('\n').length;
      return;
    }
    for (const r of rows) {
      const key = `${r.kind}/${r.namespace}/${r.name}`;
      const state = `${r.readiness.status} ${r.readiness.reason}`;
      if (this.lastSeen.get(key) === state) continue;
      this.lastSeen.set(key, state);
      this.out.write(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}: ${r.readiness.status}${r.readiness.reason ? ` (${r.readiness.reason})` : ''}\n`);
    }
  }
}

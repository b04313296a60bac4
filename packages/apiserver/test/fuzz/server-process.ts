// Starts server-child.ts and talks to it: its address and credentials, its audit log, and a stop that
// falls back to SIGKILL when the server no longer answers (a blocked event loop).
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AuditEntry } from '../../src/audit.ts';
import type { TargetServer } from './http.ts';
import type { ChildRequest } from './server-child.ts';

export interface ServerProcess {
  target: TargetServer;
  /** the server's audit log, or undefined when it does not answer within `timeoutMs` */
  audit(timeoutMs?: number): Promise<AuditEntry[] | undefined>;
  auditClear(): Promise<void>;
  close(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./server-child.ts', import.meta.url));

export async function startServerProcess(): Promise<ServerProcess> {
  const child: ChildProcess = fork(CHILD, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; caPem: string; token: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the API server process exited before it was ready (code ${code})`)));
    child.on('message', (m: { ready?: { port: number; caPem: string; token: string } }) => m.ready && resolve(m.ready));
  });
  child.removeAllListeners('exit');
  let nextId = 1;
  const ask = <T>(op: ChildRequest['op'], timeoutMs: number): Promise<T | undefined> =>
    new Promise((resolve) => {
      if (!child.connected) return resolve(undefined);
      const id = nextId++;
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        resolve(undefined);
      }, timeoutMs);
      const onMessage = (m: { id?: number }) => {
        if (m.id !== id) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m as T);
      };
      child.on('message', onMessage);
      child.send({ op, id });
    });
  return {
    target: { host: '127.0.0.1', port: ready.port, caPem: ready.caPem, token: ready.token },
    audit: async (timeoutMs = 5_000) => (await ask<{ entries: AuditEntry[] }>('audit', timeoutMs))?.entries,
    auditClear: async () => void (await ask('audit-clear', 5_000)),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const stopped = await ask('stop', 3_000);
      if (!stopped) child.kill('SIGKILL');
      await exited;
    },
  };
}

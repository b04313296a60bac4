// The fuzz target: the embedded API server in a process of its own, so a request that blocks the
// server's event loop shows up as a hung request (the fuzzer's timers still run) instead of freezing the
// test. Answers IPC requests for its audit log; exits when its parent goes away.
import { startApiServer } from '../../src/index.ts';

export type ChildRequest = { op: 'audit'; id: number } | { op: 'audit-clear'; id: number } | { op: 'stop'; id: number };

const server = await startApiServer({ port: 0 });
process.on('disconnect', () => process.exit(0));
process.on('message', async (m: ChildRequest) => {
  if (m.op === 'audit') process.send!({ id: m.id, entries: server.auditEntries() });
  if (m.op === 'audit-clear') {
    server.clearAuditEntries();
    process.send!({ id: m.id });
  }
  if (m.op === 'stop') {
    await server.close();
    process.send!({ id: m.id });
    process.exit(0);
  }
});
process.send!({ ready: { port: server.port, caPem: server.caPem, token: server.adminToken } });

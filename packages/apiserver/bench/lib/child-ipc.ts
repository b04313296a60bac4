// The benchmarks' request/answer over a forked server process's IPC channel: send `{ op }`, resolve with the
// first message answering that op (both the single-backend bench and the comparison talk to their servers so).
import type { ChildProcess } from 'node:child_process';

export function askChild<T>(child: ChildProcess, op: string, pick: (m: Record<string, unknown>) => T): Promise<T> {
  return new Promise<T>((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (m.op !== op) return;
      child.off('message', onMessage);
      resolve(pick(m));
    };
    child.on('message', onMessage);
    child.send({ op });
  });
}

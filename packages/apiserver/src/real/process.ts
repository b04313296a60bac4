// One control-plane process (etcd, kube-apiserver, kube-controller-manager): spawned with its output in a
// log file, tied to this Node process so it dies with it (setpriv's parent-death signal, plus exit and
// signal hooks), and stopped with SIGTERM then SIGKILL. Nothing outlives the test that started it.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';
const live = new Set<ChildProcess>();
let hooked = false;

function killAllNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAllNow();
      process.kill(process.pid, signal);
    });
  }
}

export class ControlPlaneProcess {
  private readonly child: ChildProcess;
  private exited = false;
  private stopping = false;
  readonly exitedPromise: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly binary: string,
    readonly args: string[],
    readonly logFile: string,
    /** added to this process's environment */
    env: Record<string, string> = {},
  ) {
    hookExit();
    const fd = openSync(logFile, 'a');
    const [cmd, argv] = existsSync(SETPRIV)
      ? [SETPRIV, ['--pdeathsig', 'KILL', '--', binary, ...args]]
      : [binary, args];
    this.child = spawn(cmd, argv, { stdio: ['ignore', fd, fd], env: { ...process.env, ...env } });
    closeSync(fd);
    live.add(this.child);
    this.exitedPromise = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exited = true;
        live.delete(this.child);
        // a control-plane process that dies under a running test explains the test's connection errors
        if (!this.stopping)
          process.stderr.write(
            `real control plane: ${this.name} (pid ${this.child.pid}) exited unexpectedly (${signal ?? `code ${code}`}); last log lines:\n${this.tail(30)}\n`,
          );
        resolve(code);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** the last lines of the process's log, for error messages */
  tail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  async stop(graceMs = 5_000): Promise<void> {
    this.stopping = true;
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exitedPromise;
    clearTimeout(timer);
  }
}

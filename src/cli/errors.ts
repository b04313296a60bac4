// Startup failures as one line a person can act on (docs/security.md, "Startup errors"): what failed, the
// flag that chose it and what to do — "port 6443 is in use — another `modelplane dev`? use --port 0" —
// instead of a Node stack trace. The stack is printed only with --verbose.
import { resolve, sep } from 'node:path';

/** the flag on the command line (`--flag value` or `--flag=value`) whose value `matches` */
export function flagFor(argv: readonly string[], matches: (value: string) => boolean): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0 && matches(a.slice(eq + 1))) return a.slice(0, eq);
    const next = argv[i + 1];
    if (eq < 0 && next !== undefined && !next.startsWith('--') && matches(next)) return a;
  }
  return undefined;
}

const samePort = (port: string) => (v: string) => v === port || v.endsWith(`:${port}`);
/** a flag's path names the failing path or a folder above it */
const underPath = (path: string) => (v: string) => {
  const dir = resolve(v);
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
};

/** the default flag for a port nobody named: `modelplane dev` listens on 6443 (--port) and 8090 (--dashboard-port) */
const DEFAULT_PORT_FLAGS: Record<string, string> = {
  '6443': '--port',
  '8090': '--dashboard-port',
  '8080': '--http-port',
  '9443': '--webhook-port',
};

function describeErrno(
  err: NodeJS.ErrnoException & { port?: number; address?: string },
  argv: readonly string[],
  command: string,
): string | undefined {
  const port = err.port !== undefined ? String(err.port) : undefined;
  const where = port ? `port ${port}${err.address ? ` on ${err.address}` : ''}` : undefined;
  const portFlag = port ? (flagFor(argv, samePort(port)) ?? DEFAULT_PORT_FLAGS[port] ?? 'its port flag') : undefined;
  const path = err.path;
  const pathFlag = path ? flagFor(argv, underPath(resolve(path))) : undefined;
  const choose = pathFlag ? ` (set by ${pathFlag})` : '';
  switch (err.code) {
    case 'EADDRINUSE':
      return `${where} is in use — another \`modelplane ${command}\`? use ${portFlag} 0 (any free port) or stop the other process`;
    case 'EACCES':
    case 'EPERM':
      if (err.syscall === 'listen' || err.syscall === 'bind')
        return `${where} needs privileges (ports below 1024 need root or CAP_NET_BIND_SERVICE) — use ${portFlag} with a port above 1023, or 0`;
      if (path)
        return `cannot ${verb(err.syscall)} ${path}${choose}: permission denied — choose a path you can ${verb(err.syscall)}`;
      return undefined;
    case 'EADDRNOTAVAIL':
      return `${where}: the address is not on this machine — bind an address it has (e.g. 127.0.0.1 or 0.0.0.0)`;
    case 'EROFS':
      return `cannot write ${path}${choose}: read-only file system — choose a writable directory`;
    case 'ENOENT':
      return path ? `${path}${choose}: no such file or directory` : undefined;
    case 'ENOTDIR':
      return path ? `${path}${choose}: a part of the path is not a directory` : undefined;
    case 'EISDIR':
      return path ? `${path}${choose}: is a directory, not a file` : undefined;
    case 'ENOSPC':
      return `no space left on the device of ${path ?? 'a file it writes'}${choose}`;
    default:
      return undefined;
  }
}

function verb(syscall: string | undefined): string {
  if (syscall === 'mkdir' || syscall === 'open' || syscall === 'write' || syscall === 'rename') return 'write';
  if (syscall === 'scandir' || syscall === 'read') return 'read';
  return 'use';
}

/** one line naming what failed and what to do */
export function startupErrorLine(err: unknown, argv: readonly string[], command: string): string {
  const errno = err as NodeJS.ErrnoException;
  const known = typeof errno?.code === 'string' ? describeErrno(errno, argv, command) : undefined;
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  // a multi-line message (a YAML parser's excerpt, an aggregated error) keeps its first line
  return (message.split('\n').find((l) => l.trim()) ?? String(err)).replace(/:\s*$/, '');
}

/** prints the line (and, with --verbose, the stack) and ends the process with `code` */
export function exitWithStartupError(err: unknown, argv: readonly string[], command: string, code = 2): never {
  const who = command ? `modelplane ${command}` : 'modelplane';
  process.stderr.write(`${who}: ${startupErrorLine(err, argv, command)}\n`);
  if (argv.includes('--verbose') && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(code);
}

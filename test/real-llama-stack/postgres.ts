// A throwaway PostgreSQL server for the real-server test: Debian's postgresql (scripts/llama-stack/setup.sh
// installs it), a fresh cluster in a temp dir (initdb), listening on 127.0.0.1 at the port given and on a
// socket in that dir, stopped and removed afterwards. TCP logins need a password (scram-sha-256), so a
// server that connects proves it passed the right one; local-socket logins are trusted, for the test's psql.
// initdb refuses to run as root: as root (CI), the cluster runs as Debian's `postgres` user.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  port: number;
  /** runs SQL as the superuser over the local socket; returns psql's unaligned output */
  psql(sql: string, db?: string): string;
  stop(): void;
}

/** the newest Debian PostgreSQL's bin dir (/usr/lib/postgresql/<major>/bin) */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], 'bin') : undefined;
}

export function startPostgres(port: number): Postgres {
  const bin = postgresBin();
  if (!bin)
    throw new Error("no PostgreSQL in /usr/lib/postgresql: run scripts/llama-stack/setup.sh (Debian's postgresql)");
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const pg = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(pg.stdout.trim()), Number(gid.stdout.trim()));
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string, args: string[]) => {
    const r = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { encoding: 'utf8', cwd: dir })
      : spawnSync(join(bin, cmd), args, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '120', 'start']);
  return {
    port,
    psql: (sql, db = 'postgres') =>
      run('psql', [
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        db,
        '-v',
        'ON_ERROR_STOP=1',
        '-At',
        '-c',
        sql,
      ]),
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

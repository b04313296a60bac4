// spec.storage.sql postgres on the published Llama Stack server (docs/llamastack.md, "Postgres storage"):
// our generated config.yaml and the container command our Deployment gets (the start-up split of the
// connection string, then `llama stack run`), against Debian's PostgreSQL in a temp dir. The server must
// boot, serve a chat completion, and keep its stores in that database (tables created, the completion
// stored, listed back through the API); a connection string that is not a postgres URL stops the start
// with a message naming the field and never the value. Run by `npm run test:llama-stack`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LlamaStackDistribution, LlamaStackDistributionSpec } from '../../src/apis/llamastack/index.ts';
import { embeddedBaseConfig, generateConfig } from '../../src/controllers/llamastack/config/index.ts';
import { SQL_CONNECTION_STRING_ENV } from '../../src/controllers/llamastack/config/postgres.ts';
import { CONFIG_PATH } from '../../src/controllers/llamastack/names.ts';
import { buildDeployment } from '../../src/controllers/llamastack/workload.ts';
import { waitFor } from '../helpers/wait.ts';
import { fakeVllm, installDeps, stop, VENV, waitHealthy } from './helpers.ts';
import { type Postgres, startPostgres } from './postgres.ts';

type Json = Record<string, any>;
const PASSWORD = 'p@ss:w/rd%x';
const SERVER_PORT = 18400 + Math.floor(Math.random() * 50);

/** the container's command and args as our Deployment has them, with the config at `config` */
function containerCommand(spec: LlamaStackDistributionSpec, g: ReturnType<typeof generateConfig>, config: string) {
  const cr = { metadata: { name: 'pg', namespace: 'default' }, spec } as LlamaStackDistribution;
  const d = buildDeployment({
    cr,
    image: 'docker.io/llamastack/distribution-remote-vllm:0.7.3',
    port: SERVER_PORT,
    config: { configMap: 'pg-config', key: 'config.yaml', hash: g.hash },
    secrets: g.secrets,
  }) as Json;
  const c = d.spec.template.spec.containers[0];
  return [...c.command, ...c.args].map((a: string) => (a === CONFIG_PATH ? config : a));
}

describe('storage.sql postgres on the published server against Debian PostgreSQL', { timeout: 900_000 }, () => {
  let vllm: Server;
  let pg: Postgres;
  let dir: string;
  before(async () => {
    assert.ok(spawnSync(`${VENV}/llama`, ['stack', '--version']).status === 0, 'run scripts/llama-stack/setup.sh');
    vllm = await fakeVllm();
    dir = mkdtempSync(join(tmpdir(), 'modelplane-llama-pg-'));
    pg = startPostgres(25432 + Math.floor(Math.random() * 1000));
    pg.psql(`CREATE ROLE llama LOGIN PASSWORD '${PASSWORD}'`);
    pg.psql('CREATE DATABASE "2024" OWNER llama');
  });
  after(() => {
    vllm?.close();
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const spec = (): LlamaStackDistributionSpec => ({
    distribution: { name: 'remote-vllm' },
    providers: {
      inference: [
        {
          id: 'vllm',
          provider: 'vllm',
          endpoint: `http://127.0.0.1:${(vllm.address() as AddressInfo).port}/v1`,
          apiKey: { name: 'vllm', key: 'token' },
        },
      ],
    },
    resources: { models: [{ name: 'tiny-chat' }], shields: [] },
    disabled: ['vector_io'],
    storage: { sql: { type: 'postgres', connectionString: { name: 'pg', key: 'dsn' } } },
  });

  const start = (
    connectionString: string,
  ): { child: ChildProcess; output: () => string; command: string[]; spawnedAt: number } => {
    const s = spec();
    const g = generateConfig({ spec: s, base: embeddedBaseConfig('remote-vllm')!, distroName: 'remote-vllm' });
    const config = join(dir, 'config.yaml');
    writeFileSync(config, g.yaml);
    installDeps(config);
    const command = containerCommand(s, g, config);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      PATH: `${VENV}:${process.env.PATH}`,
      HOME: dir,
      SQLITE_STORE_DIR: dir,
    };
    for (const r of g.secrets) env[r.env] = r.env === SQL_CONNECTION_STRING_ENV ? connectionString : 'x';
    let output = '';
    const spawnedAt = Date.now();
    const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    return { child, output: () => output, command, spawnedAt };
  };

  it('boots on the generated config through the Deployment command, serves chat, keeps its stores in PostgreSQL', async () => {
    const dsn = `postgresql://llama:${encodeURIComponent(PASSWORD)}@127.0.0.1:${pg.port}/2024?sslmode=disable`;
    const { child, output, command, spawnedAt } = start(dsn);
    assert.equal(command[0], 'python3', 'the Deployment starts through the connection-string split');
    const url = `http://127.0.0.1:${SERVER_PORT}`;
    try {
      await waitHealthy(url, child, output);
      const bootMs = Date.now() - spawnedAt;
      assert.deepEqual(await (await fetch(`${url}/v1/health`)).json(), { status: 'OK' });
      const t1 = Date.now();
      const chat = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'vllm/tiny-chat', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const answer = (await chat.json()) as Json;
      const chatMs = Date.now() - t1;
      assert.equal(answer.choices?.[0]?.message?.content, 'hello from the fake vLLM', JSON.stringify(answer));
      // the completion is stored (through a write queue) and listed back: the server's only sql store is
      // PostgreSQL, which it opens on first use
      const listed = await waitFor(
        'the completion listed back through the API',
        async () => {
          const page = (await (await fetch(`${url}/v1/chat/completions`)).json()) as Json;
          return (page.data ?? []).some((c: Json) => c.id === answer.id) ? page : undefined;
        },
        { timeoutMs: 120_000 },
      );
      assert.ok(listed);
      const tables = pg.psql("SELECT tablename FROM pg_tables WHERE tableowner = 'llama' ORDER BY 1", '2024');
      assert.match(tables, /^inference_store$/m, `tables of llama in 2024: ${tables}`);
      const rows = pg.psql('SELECT id FROM inference_store', '2024').trim().split('\n').filter(Boolean);
      assert.ok(rows.includes(answer.id), `completion ${answer.id} stored in PostgreSQL (rows: ${rows.join(', ')})`);
      const sessions = pg.psql("SELECT count(*) FROM pg_stat_activity WHERE usename = 'llama'").trim();
      assert.ok(Number(sessions) >= 1, 'the server holds connections as the role the connection string names');
      console.log(
        `postgres storage: booted in ${bootMs} ms, chat in ${chatMs} ms, ${tables.trim().split('\n').length} tables in 2024, ${rows.length} stored completion(s)`,
      );
    } finally {
      await stop(child);
    }
  });

  it('a connection string that is not a postgres URL stops the start naming the field, never the value', async () => {
    const { child, output } = start('mysql://root:hunter2-secret@db:3306/x');
    const code = await new Promise<number | null>((r) =>
      child.exitCode !== null ? r(child.exitCode) : child.once('exit', r),
    );
    assert.equal(code, 1);
    assert.match(output(), /spec\.storage\.sql\.connectionString: expected postgresql:\/\/user\[:password\]@host/);
    assert.doesNotMatch(output(), /hunter2/);
  });
});

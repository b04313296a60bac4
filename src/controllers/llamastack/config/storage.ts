// spec.storage → config.yaml `storage` (docs/llamastack.md, "Merge rules"): `kv` replaces the kv_default
// backend and `sql` the sql_default backend, each on its own; the stores and any other backends of the
// base are kept. No spec.storage keeps the distribution's storage as it is.
import type { LlamaStackDistributionSpec } from '../../../apis/llamastack/index.ts';
import { postgresSqlBackend, SQL_CONNECTION_STRING_ENV } from './postgres.ts';
import { type SecretCollector, secretEnvName } from './secrets.ts';

type Storage = NonNullable<LlamaStackDistributionSpec['storage']>;
type Obj = Record<string, unknown>;

/** sqlite files live in the server's storage volume (SQLITE_STORE_DIR is set to its mount path) */
const SQLITE_DIR = `\${env.SQLITE_STORE_DIR:=/.llama}`;

const DEFAULT_STORES: Obj = {
  metadata: { namespace: 'registry', backend: 'kv_default' },
  inference: { table_name: 'inference_store', backend: 'sql_default' },
  conversations: { table_name: 'openai_conversations', backend: 'sql_default' },
  prompts: { namespace: 'prompts', backend: 'kv_default' },
};

function hostPort(endpoint: string): { host: string; port?: number } {
  const bare = endpoint.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
  const m = /^(.*):(\d+)$/.exec(bare);
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: bare };
}

function kvBackend(kv: NonNullable<Storage['kv']>, secrets: SecretCollector): Obj {
  if (kv.type !== 'redis') return { type: 'kv_sqlite', db_path: `${SQLITE_DIR}/kvstore.db` };
  const out: Obj = { type: 'kv_redis', ...hostPort(kv.endpoint ?? '') };
  if (kv.password) {
    out.password = secrets.add({
      env: secretEnvName('storage', 'kv-password'),
      secret: kv.password.name,
      key: kv.password.key,
      field: 'spec.storage.kv.password',
    });
  }
  return out;
}

function sqlBackend(sql: NonNullable<Storage['sql']>, secrets: SecretCollector): Obj {
  if (sql.type !== 'postgres' || !sql.connectionString)
    return { type: 'sql_sqlite', db_path: `${SQLITE_DIR}/sql_store.db` };
  // the value reaches the container only: split at start-up into the backend's fields (postgres.ts)
  secrets.add({
    env: SQL_CONNECTION_STRING_ENV,
    secret: sql.connectionString.name,
    key: sql.connectionString.key,
    field: 'spec.storage.sql.connectionString',
  });
  return postgresSqlBackend();
}

export function mergeStorage(base: unknown, user: Storage | undefined, secrets: SecretCollector): unknown {
  if (!user) return base;
  const b = (base && typeof base === 'object' ? base : {}) as Obj;
  const backends: Obj = { ...((b.backends as Obj | undefined) ?? {}) };
  if (user.kv) backends.kv_default = kvBackend(user.kv, secrets);
  if (user.sql) backends.sql_default = sqlBackend(user.sql, secrets);
  return { ...b, backends, stores: b.stores ?? DEFAULT_STORES };
}

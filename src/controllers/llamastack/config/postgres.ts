// spec.storage.sql postgres (docs/llamastack.md, "Postgres storage"). The API takes one connection string
// from a Secret; the server's sql_postgres backend takes host, port, db, user and password. The operator
// never reads the value into anything it writes: the config names five variables, the container gets the
// connection string by secretKeyRef, and the server starts through a few lines of Python (the image's own
// interpreter) that split it into those variables and exec `llama stack run`.

/** the variable the connection string reaches the container in (secretKeyRef) */
export const SQL_CONNECTION_STRING_ENV = 'LLSD_STORAGE_SQL_CONNECTION_STRING';

const PART = (name: string) => `LLSD_STORAGE_SQL_${name}`;

/** the sql_postgres backend of config.yaml: every field from a variable the start-up split sets */
export function postgresSqlBackend(): Record<string, string> {
  return {
    type: 'sql_postgres',
    host: `\${env.${PART('HOST')}}`,
    port: `\${env.${PART('PORT')}}`,
    db: `\${env.${PART('DB')}}`,
    user: `\${env.${PART('USER')}}`,
    // no password in the string: empty, not the server's "None"
    password: `\${env.${PART('PASSWORD')}:=}`,
  };
}

/**
 * Splits postgres[ql]://user[:password]@host[:port][/db][?sslmode=…] into the variables above and execs
 * the rest of argv. The server turns a substituted value that looks like a number, a boolean or nothing into
 * one (a password `123456` would fail its string field) and expands a leading `~`; its engine URL decodes
 * user, password and db. So those three are handed over with every byte percent-encoded: never a number,
 * always decoded back. sslmode becomes asyncpg's `ssl`. A value that is not such a URL stops the container
 * with a message naming the field (never the value).
 */
const SPLIT = `import os, sys
from urllib.parse import urlsplit, parse_qs, unquote_to_bytes
field = "spec.storage.sql.connectionString"
try:
    u = urlsplit(os.environ["${SQL_CONNECTION_STRING_ENV}"])
    port = u.port or 5432
except (KeyError, ValueError) as e:
    sys.exit(f"{field}: not a postgresql:// URL ({type(e).__name__})")
if u.scheme not in ("postgres", "postgresql") or not u.hostname or "@" not in u.netloc:
    sys.exit(f"{field}: expected postgresql://user[:password]@host[:port]/db")
enc = lambda s: "".join("%%%02X" % b for b in unquote_to_bytes(s))
user, _, password = u.netloc.rpartition("@")[0].partition(":")
host = u.hostname if ":" not in u.hostname else f"[{u.hostname}]"
ssl = parse_qs(u.query).get("sslmode")
os.environ.update({"${PART('HOST')}": host, "${PART('PORT')}": str(port), "${PART('USER')}": enc(user),
    "${PART('PASSWORD')}": enc(password), "${PART('DB')}": enc(u.path.lstrip("/") or user) + (f"?ssl={ssl[0]}" if ssl else "")})
os.execvp(sys.argv[1], sys.argv[1:])
`;

/** the start-up command for a config with postgres storage: the split, then `command` */
export function withConnectionStringSplit(command: readonly string[]): string[] {
  return ['python3', '-c', SPLIT, ...command];
}

// With --data-dir the server keeps its CA and admin token beside the objects, so a kubeconfig written
// before a restart keeps working after it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerIdentity {
  ca?: { certPem: string; keyPem: string };
  adminToken?: string;
}

export function loadServerIdentity(dir: string): ServerIdentity {
  const out: ServerIdentity = {};
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  if (existsSync(cert) && existsSync(key))
    out.ca = { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
  const token = join(dir, 'admin-token');
  if (existsSync(token)) out.adminToken = readFileSync(token, 'utf8').trim();
  return out;
}

export function saveServerIdentity(dir: string, id: ServerIdentity): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (id.ca) {
    writeFileSync(join(dir, 'ca.crt'), id.ca.certPem);
    writeFileSync(join(dir, 'ca.key'), id.ca.keyPem, { mode: 0o600 });
  }
  if (id.adminToken) writeFileSync(join(dir, 'admin-token'), `${id.adminToken}\n`, { mode: 0o600 });
}

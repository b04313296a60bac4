// Static bearer tokens: the admin token `dev` writes into its kubeconfig, tokens tests register, and
// kube-apiserver's --token-auth-file format (`token,user,uid,"group1,group2"`).
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../types.ts';
import type { Authenticator, AuthUser } from './types.ts';

export class TokenAuthenticator implements Authenticator {
  readonly tokens = new Map<string, UserInfo>();

  add(token: string, user: UserInfo): void {
    this.tokens.set(token, user);
  }

  lookup(token: string): AuthUser | undefined {
    return this.tokens.get(token);
  }

  authenticate(req: IncomingMessage): AuthUser | undefined {
    const token = bearerToken(req);
    return token === undefined ? undefined : this.lookup(token);
  }
}

/** The token of an `Authorization: Bearer <token>` header (kube accepts any case of "bearer"). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/**
 * Parses a tokens file the way kube's tokenfile authenticator does: CSV records of at least three
 * columns (token, user name, uid), an optional fourth column of comma-separated groups; blank lines
 * skipped; a record with an empty token skipped; a repeated token keeps the later record.
 */
export function parseTokensFile(text: string, path = 'tokens file'): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  for (const { line, fields } of parseCsv(text, path)) {
    if (fields.length < 3)
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`,
      );
    const [token, username, uid] = fields as [string, string, string];
    if (token === '') continue;
    const groups = fields.length >= 4 && fields[3] !== '' ? fields[3]!.split(',') : [];
    out.set(token, { username, uid, groups });
  }
  return out;
}

export function loadTokensFile(path: string): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read token file '${path}': ${(e as Error).message}`);
  }
  return parseTokensFile(text, path);
}

/** RFC 4180 records as Go's encoding/csv reads them with TrimLeadingSpace (quotes, "" escapes, CRLF). */
function parseCsv(text: string, path: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const startLine = line;
    const fields: string[] = [];
    let atRecordStart = true;
    for (;;) {
      while (text[i] === ' ' || text[i] === '\t') i++;
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length)
            throw new Error(`token file '${path}': line ${startLine}: extraneous or missing " in quoted-field`);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw new Error(`token file '${path}': line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n'))
          field += text[i++];
      }
      fields.push(field);
      atRecordStart = false;
      if (text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') {
      i++;
      line++;
    }
    const blank = !atRecordStart && fields.length === 1 && fields[0] === '';
    if (!blank) records.push({ line: startLine, fields });
  }
  return records;
}

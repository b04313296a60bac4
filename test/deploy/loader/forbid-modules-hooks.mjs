// The module hooks forbid-modules.mjs registers (they run on Node's loader thread). The check is on the
// resolved file URL, after symlinks are followed, so a workspace package is caught whether it is imported
// by its package name, through node_modules, or by a relative path.
import { appendFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let forbidden = [];
let log = '';

export function initialize(data) {
  forbidden = data.forbidden.map((dir) => (dir.endsWith(sep) ? dir : dir + sep));
  log = data.log;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith('file:')) return resolved;
  const path = fileURLToPath(resolved.url);
  if (log) appendFileSync(log, `${path}\n`);
  const dir = forbidden.find((d) => path.startsWith(d));
  if (dir)
    throw new Error(
      `forbidden module ${path} (under ${dir}) imported as "${specifier}" by ${context.parentURL ?? 'the entry'}`,
    );
  return resolved;
}

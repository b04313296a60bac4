// Every HTTP server of the operator, the runtime and the simulators is created behind the shared error
// boundary (serveGuarded, docs/security.md): a server added later with its own request listener would be
// the one a bad request takes down. Checked on the source text; the embedded API server (a package of its
// own that imports nothing of the operator) keeps its own boundary, with its own fuzz suite.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOTS = ['src', 'packages/runtime/src', 'packages/sim/src'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('HTTP servers behind the shared error boundary', () => {
  it('every http/https createServer is wrapped in serveGuarded', () => {
    const unguarded: string[] = [];
    let found = 0;
    for (const file of ROOTS.flatMap(tsFiles)) {
      const text = readFileSync(file, 'utf8');
      // node:net servers (raw TCP: the pod-network claim, port probes) speak no HTTP
      if (!/from 'node:https?'/.test(text)) continue;
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        if (!/\bcreateServer\(/.test(line) || /^\s*(\/\/|\*)/.test(line) || /import/.test(line)) return;
        found++;
        const around = lines.slice(Math.max(0, i - 2), i + 1).join('\n');
        if (!around.includes('serveGuarded(')) unguarded.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.ok(found >= 9, `only ${found} servers found: the scan is broken`);
    assert.deepEqual(unguarded, []);
  });
});

// The test tiers stay honest (docs/testing.md): a file the unit tier runs starts no API server, socket or
// process, directly or through the local test modules it imports. Otherwise `npm run test:unit` would grow
// past its minute; the fix is to name the file `*.integration.test.ts`.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CLUSTER_MARKERS, isClusterTest } from '../scripts/test-tiers.mjs';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const RELATIVE_IMPORT = /from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** the first local test module (this file or one it imports) that starts something, with the marker */
function startsSomething(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file) || !existsSync(file)) return undefined;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const hit = CLUSTER_MARKERS.exec(text);
  if (hit) return `${file} (${hit[0]})`;
  for (const m of text.matchAll(RELATIVE_IMPORT)) {
    const target = relative('.', resolve(dirname(file), (m[1] ?? m[2])!));
    const isTestModule = target.startsWith('test/') || /^packages\/[^/]+\/test\//.test(target);
    const found = isTestModule ? startsSomething(target, seen) : undefined;
    if (found) return found;
  }
  return undefined;
}

const testRoots = ['test', ...readdirSync('packages').map((p) => join('packages', p, 'test'))].filter(existsSync);
const testFiles = testRoots.flatMap(walk).filter((f) => f.endsWith('.test.ts'));

describe('test tiers', () => {
  it('every unit-tier file starts no API server, socket or process', () => {
    const wrong = testFiles
      .filter((f) => !isClusterTest(f))
      .flatMap((f) => {
        const found = startsSomething(f);
        return found ? [`${f}: starts something in ${found}; rename it *.integration.test.ts`] : [];
      });
    assert.deepEqual(wrong, []);
  });

  it('the rules classify by name and folder', () => {
    assert.equal(isClusterTest('test/cli/render.integration.test.ts'), true);
    assert.equal(isClusterTest('test/e2e/aim-chain.test.ts'), true);
    assert.equal(isClusterTest('packages/apiserver/test/patch/json.test.ts'), false);
    assert.equal(isClusterTest('test/common/path-template.test.ts'), false);
  });
});

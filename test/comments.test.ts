// Code comments that cite something must be true (docs/testing.md): every repository path a comment names
// exists (from the repository root, or from the package root for a file inside packages/*), every
// `docs/<name>.md, "<heading>"` names a heading X.md has, and no comment cites a document outside the repository.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const CODE = /\.(ts|tsx|mjs|sh)$/;
const ROOTS = ['src', 'packages', 'test', 'bench', 'scripts', 'tools', 'web/src', 'deploy', '.ci'];
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.tools')) return [];
    return statSync(p).isDirectory() ? walk(p) : CODE.test(name) || dir === '.ci' ? [p] : [];
  });
}
const files = ROOTS.filter(existsSync).flatMap(walk);

/** the comment part of a line: after `//`, a JSDoc `*` or a shell `#` */
const COMMENT = /(?:^|\s)(?:\/\/|\/?\*+|#)\s(.*)$/;
const PATH = /(?<![\w@/.-])((?:docs|src|packages|test|bench|scripts|tools|deploy|examples|web)\/[\w./-]*\w)/g;
const SECTION = /(docs\/[\w-]+\.md),?\s+["“]([^"”]{3,80})["”]/g;
const OUTSIDE = /(?<![\w/.-])(DESIGN\.md|\.\.\/shared\/|seeds\/\d{3}_)/;

const headingsOf = new Map<string, string[]>();
function headings(doc: string): string[] {
  if (!headingsOf.has(doc)) {
    const text = existsSync(doc) ? readFileSync(doc, 'utf8') : '';
    headingsOf.set(
      doc,
      [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]!.replace(/[`*]/g, '').trim().toLowerCase()),
    );
  }
  return headingsOf.get(doc)!;
}

function exists(file: string, cited: string): boolean {
  const pkg = /^packages\/[^/]+\//.exec(file)?.[0];
  return existsSync(cited) || (pkg !== undefined && existsSync(join(pkg, cited)));
}

function problemsOf(file: string): string[] {
  const problems: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const comment = COMMENT.exec(line)?.[1];
      if (!comment) return;
      const where = `${file}:${i + 1}`;
      const outside = OUTSIDE.exec(comment);
      if (outside) problems.push(`${where}: cites ${outside[1]}, outside the repository`);
      for (const m of comment.matchAll(PATH)) {
        const cited = m[1]!.replace(/\.+$/, '');
        if (!exists(file, cited)) problems.push(`${where}: ${cited} does not exist`);
      }
      for (const m of comment.matchAll(SECTION)) {
        const title = m[2]!.toLowerCase().replace(/[`*]/g, '');
        if (!headings(m[1]!).some((h) => h.startsWith(title)))
          problems.push(`${where}: ${m[1]} has no heading "${m[2]}"`);
      }
    });
  return problems;
}

describe('comments that cite', () => {
  it('name paths that exist, headings the docs have, and nothing outside the repository', () => {
    assert.deepEqual(files.flatMap(problemsOf), []);
  });
});

// The workspace's import rules (docs/architecture.md), checked on the source text: each package imports only
// inside itself and its declared dependencies, and the operator reaches a package only through its exports.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

interface PackageJson {
  name: string;
  exports: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const packages = readdirSync('packages').map((dir) => ({
  dir: join('packages', dir),
  json: JSON.parse(readFileSync(join('packages', dir, 'package.json'), 'utf8')) as PackageJson,
}));

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name` */
const packageName = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

describe('workspace layering', () => {
  for (const pkg of packages) {
    it(`${pkg.json.name} imports only its own files, node: built-ins and its declared dependencies`, () => {
      const allowed = new Set([
        ...Object.keys(pkg.json.dependencies ?? {}),
        ...Object.keys(pkg.json.devDependencies ?? {}),
      ]);
      const problems: string[] = [];
      for (const file of tsFiles(pkg.dir)) {
        for (const spec of importsOf(file)) {
          if (spec.startsWith('.')) {
            const target = relative(pkg.dir, resolve(dirname(file), spec));
            if (target.startsWith('..')) problems.push(`${file}: ${spec} leaves the package`);
          } else if (!spec.startsWith('node:') && !allowed.has(packageName(spec))) {
            problems.push(`${file}: ${spec} is not a dependency in ${pkg.dir}/package.json`);
          } else if (spec.startsWith('@modelplane/')) {
            const dep = packages.find((p) => p.json.name === packageName(spec));
            const subpath = `.${spec.slice(packageName(spec).length)}`;
            if (!dep || !(subpath in dep.json.exports))
              problems.push(`${file}: ${spec} is not an export of ${packageName(spec)}`);
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  it('the operator, its tests and benchmarks reach the packages only through their exports', () => {
    const problems: string[] = [];
    for (const file of ['src', 'test', 'bench'].flatMap(tsFiles)) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.') && relative('.', resolve(dirname(file), spec)).startsWith('packages'))
          problems.push(`${file}: ${spec} reaches into a package`);
        if (spec.startsWith('@modelplane/')) {
          const dep = packages.find((p) => p.json.name === packageName(spec));
          const subpath = `.${spec.slice(packageName(spec).length)}`;
          if (!dep || !(subpath in dep.json.exports))
            problems.push(`${file}: ${spec} is not an export of ${packageName(spec)}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
});

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

// The folder rules inside the operator (docs/architecture.md, "Layout"): a planner is pure, so neither it nor
// anything it loads reaches the API (client, cache, controllers, manager, events, finalizers) or the network;
// API types are data, so src/apis imports no builder, controller or client; and no module imports itself
// back through others (a cycle makes load order matter).

/** the specifiers a file loads at run time: `import type` and all-`type` name lists are left out */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const CLAUSE =
    /(?:^|\n)\s*(?:import|export)(\s+type)?\s*(\{[^}]*\}|\*\s+as\s+\w+|\w+(?:\s*,\s*\{[^}]*\})?)?\s*from\s*['"]([^'"]+)['"]/g;
  return [...text.matchAll(CLAUSE)]
    .filter(([, typeOnly, clause]) => {
      if (typeOnly) return false;
      if (!clause?.startsWith('{')) return true;
      const names = clause
        .slice(1, -1)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return names.length === 0 || !names.every((n) => n.startsWith('type '));
    })
    .map((m) => m[3]!);
}

const IMPURE =
  /^(@modelplane\/runtime\/(client|cache|controller|manager|events|finalizer|testing)$|@modelplane\/(apiserver|sim)|node:(http|https|net|tls|dgram|child_process)$)/;

/** the first chain of value imports from `file` to an impure module, or undefined */
function impureChain(file: string, seen = new Set<string>()): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  for (const spec of valueImportsOf(file)) {
    if (IMPURE.test(spec)) return [file, spec];
    if (!spec.startsWith('.')) continue;
    const chain = impureChain(relative('.', resolve(dirname(file), spec)), seen);
    if (chain) return [file, ...chain];
  }
  return undefined;
}

const planners = tsFiles('src/controllers').filter((f) => /\/(plan|[\w-]+-plan|planner)\.ts$/.test(f));

describe('folder layering', () => {
  it('finds the planners it checks', () => assert.ok(planners.length >= 10, `${planners.length} planners`));

  it('a planner loads no client, cache, controller or network module, directly or through what it imports', () => {
    const problems = planners.flatMap((p) => {
      const chain = impureChain(p);
      return chain ? [chain.join(' → ')] : [];
    });
    assert.deepEqual(problems, []);
  });

  it('API types (src/apis) import only schemas, the shared types and other API types', () => {
    const allowed = /^(zod$|@modelplane\/apimachinery(\/[\w-]+)?$|@modelplane\/runtime\/(crd|meta)$)/;
    const problems = tsFiles('src/apis').flatMap((file) =>
      importsOf(file).flatMap((spec) => {
        if (!spec.startsWith('.')) return allowed.test(spec) ? [] : [`${file}: ${spec}`];
        const target = relative('.', resolve(dirname(file), spec));
        return target.startsWith('src/apis/') || /^src\/common\/[\w-]+\/types\.ts$/.test(target)
          ? []
          : [`${file}: ${spec} (${target})`];
      }),
    );
    assert.deepEqual(problems, []);
  });

  it('no module imports itself back through others (types and lazy import() included)', () => {
    const files = ['src', ...packages.map((p) => join(p.dir, 'src'))].flatMap(tsFiles);
    const edges = new Map<string, string[]>();
    for (const file of files) {
      edges.set(
        file,
        importsOf(file).flatMap((spec) => {
          if (spec.startsWith('.')) return [relative('.', resolve(dirname(file), spec))];
          const dep = packages.find((p) => p.json.name === packageName(spec));
          const target = dep?.json.exports[`.${spec.slice(packageName(spec).length)}`];
          return dep && target ? [join(dep.dir, target)] : [];
        }),
      );
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) if (edges.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    assert.deepEqual(cycles, []);
  });
});

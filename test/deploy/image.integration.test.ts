// deploy/Dockerfile cannot be built here (no registry), so this checks what would make it fail or drift: what
// it copies exists, `npm ci --omit=dev` installs every package src/ imports (tsx included, the image has no
// build step), its entrypoint is the CLI, its user is the chart's runAsUser, and the versions line up.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CHART_PATH, ofKind, renderChart } from './chart.ts';

const DOCKERFILE = readFileSync('deploy/Dockerfile', 'utf8');
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** the Dockerfile's instructions as [keyword, rest], comments and blank lines dropped */
function instructions(): Array<[string, string]> {
  return DOCKERFILE.split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [keyword, ...rest] = l.split(/\s+/);
      return [keyword!.toUpperCase(), rest.join(' ')];
    });
}
const only = (keyword: string) =>
  instructions()
    .filter(([k]) => k === keyword)
    .map(([, rest]) => rest);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** the package a bare import specifier names: `@scope/name` or `name` */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

describe('deploy/Dockerfile', () => {
  it('builds FROM node:20-slim, installs production dependencies only, and copies files that exist', () => {
    assert.deepEqual(only('FROM'), ['node:20-slim']);
    assert.ok(
      only('RUN').some((r) => /\bnpm ci --omit=dev\b/.test(r)),
      'RUN npm ci --omit=dev',
    );
    for (const copy of only('COPY')) {
      const sources = copy.split(/\s+/).slice(0, -1);
      for (const s of sources) assert.ok(existsSync(s), `COPY ${s}: no such file in the repository`);
    }
  });

  it('npm ci --omit=dev installs every package src/ imports, tsx included', () => {
    assert.ok(
      PACKAGE.dependencies.tsx,
      'tsx must stay a runtime dependency: the image runs the TypeScript sources through it',
    );
    const imported = new Set<string>();
    for (const file of sourceFiles('src')) {
      for (const m of readFileSync(file, 'utf8').matchAll(
        /^\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+'([^'.][^']*)'/gm,
      )) {
        if (!m[1]!.startsWith('node:')) imported.add(packageOf(m[1]!));
      }
    }
    assert.ok(imported.size > 5, `found only ${[...imported].join(', ')}: the import scan is broken`);
    const missing = [...imported].filter((p) => !PACKAGE.dependencies[p]);
    assert.deepEqual(
      missing,
      [],
      'imported by src/ but not in package.json "dependencies" (the image omits devDependencies)',
    );
  });

  it('runs the CLI as a numeric non-root user, the one the chart sets', async () => {
    const [entrypoint] = only('ENTRYPOINT');
    const argv = JSON.parse(entrypoint!) as string[];
    assert.equal(argv[0], 'node');
    const workdir = only('WORKDIR').at(-1)!;
    assert.equal(posix.relative(workdir, argv[1]!), 'bin/modelplane.js');
    assert.ok(
      only('COPY').some((c) => c.startsWith('bin ')),
      'bin/ is copied',
    );
    const [user] = only('USER');
    assert.match(user!, /^\d+(:\d+)?$/, 'USER must be numeric so the kubelet can enforce runAsNonRoot');
    const values = parseYaml(readFileSync(`${CHART_PATH}/values.yaml`, 'utf8'));
    assert.equal(Number(user!.split(':')[0]), values.podSecurityContext.runAsUser);
    assert.notEqual(values.podSecurityContext.runAsUser, 0);
  });

  it("the chart's appVersion and default image tag are package.json's version", async () => {
    const chart = parseYaml(readFileSync(`${CHART_PATH}/Chart.yaml`, 'utf8'));
    assert.equal(chart.apiVersion, 'v2');
    assert.equal(chart.appVersion, PACKAGE.version);
    const { objects } = await renderChart('modelplane-system', [
      '--set',
      'image.repository=registry.example/modelplane',
    ]);
    for (const d of ofKind(objects, 'Deployment'))
      assert.equal(d.spec.template.spec.containers[0].image, `registry.example/modelplane:${PACKAGE.version}`);
  });
});

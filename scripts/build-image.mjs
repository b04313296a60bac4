// Builds the image's entry (deploy/Dockerfile's build stage): `modelplane` as one ES module, dist/modelplane.mjs,
// bundled by esbuild from src/cli/main.ts with everything it imports: the workspace packages (they ship
// TypeScript sources) and the npm dependencies, so the image needs no node_modules. A process then starts
// without resolving and loading about 1,800 files and without tsx's loader and source maps in memory
// (docs/deploy.md has the figures).
//
// What the bundle must not hold fails the build: the dev-only commands (dev, load, status, dashboard) are
// imported lazily and left out (in the image they say so); no module of the API server or the simulators and no
// npm package the lockfile marks as a development dependency may be bundled. Files a bundled module reads
// beside itself (`new URL('./x/', import.meta.url)`) are copied to the same place relative to the bundle, and
// the licence of every bundled npm package goes to THIRD_PARTY_LICENSES.txt beside it.
//
//   node scripts/build-image.mjs [OUTDIR]     (default dist)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUTDIR = resolve(process.argv[2] ?? join(ROOT, 'dist'));
const ENTRY = 'src/cli/main.ts';
/** folders no module of the image may come from */
const DEV_ONLY = ['packages/apiserver/', 'packages/sim/'];
/** bundled CommonJS modules call require() for Node's built-ins (and optional packages, inside try) */
const REQUIRE_SHIM =
  "import { createRequire as __modelplaneCreateRequire } from 'node:module'; const require = __modelplaneCreateRequire(import.meta.url);";

/** lazily loaded commands the image runs all the same: the dashboard, which a cluster runs as a Deployment */
const SHIPPED_COMMANDS = ['dashboard'];

/**
 * What the dev-only commands run (src/cli/<command>/command.ts, imported lazily by src/cli/<command>.ts) stays out
 * of the bundle; every other import is bundled, dynamic ones included (src/cli/main.ts loads the invoked command).
 */
const lazyCommands = {
  name: 'modelplane-lazy-commands',
  setup(b) {
    b.onResolve({ filter: /\/command\.ts$/ }, (args) => {
      const fromCli = relative(ROOT, args.importer).startsWith('src/cli/');
      const shipped = SHIPPED_COMMANDS.some((c) => args.path === `./${c}/command.ts`);
      return args.kind === 'dynamic-import' && fromCli && !shipped ? { path: args.path, external: true } : undefined;
    });
  },
};

/** the chain of imports from the entry to `input`, to say why a forbidden module was bundled */
function importChain(inputs, input) {
  const chain = [input];
  for (let current = input; current !== ENTRY && chain.length < 50; ) {
    const parent = Object.keys(inputs).find((file) => inputs[file].imports.some((i) => i.path === current));
    if (!parent) break;
    chain.unshift(parent);
    current = parent;
  }
  return chain.join(' → ');
}

/** `node_modules/a/node_modules/@s/b/lib/x.js` → `node_modules/a/node_modules/@s/b` */
function packageDirOf(input) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m ? m[1] : undefined;
}

/** bundled inputs that must not be: dev-only workspace folders, and npm packages the lockfile marks dev */
function forbiddenInputs(inputs) {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
  return Object.keys(inputs).filter((f) => {
    if (DEV_ONLY.some((d) => f.startsWith(d))) return true;
    const pkg = packageDirOf(f);
    return pkg !== undefined && lock[pkg]?.dev === true;
  });
}

/** copies what bundled modules read relative to themselves, to the same place relative to the bundle */
function copyAssets(inputs) {
  const copied = new Map();
  for (const input of Object.keys(inputs).filter((f) => !f.includes('node_modules/'))) {
    const text = readFileSync(join(ROOT, input), 'utf8');
    for (const m of text.matchAll(/new URL\(\s*'(\.\/[^']*)'\s*,\s*import\.meta\.url\s*\)/g)) {
      const from = resolve(ROOT, dirname(input), m[1]);
      const to = resolve(OUTDIR, m[1]);
      if (copied.has(to) && copied.get(to) !== from)
        throw new Error(`${input} and another module both read ${m[1]} beside themselves: rename one`);
      if (!existsSync(from)) throw new Error(`${input} reads ${m[1]}, which does not exist`);
      cpSync(from, to, { recursive: true });
      copied.set(to, from);
    }
  }
  return [...copied.values()].map((f) => relative(ROOT, f));
}

/** every bundled npm package's licence file (or its package.json licence field), for THIRD_PARTY_LICENSES.txt */
function licences(inputs) {
  const dirs = [...new Set(Object.keys(inputs).map(packageDirOf).filter(Boolean))].sort();
  return dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(ROOT, dir)).find((n) => /^(licen[cs]e|copying)(\.|$)/i.test(n));
    const text = file ? readFileSync(join(ROOT, dir, file), 'utf8').trim() : `License: ${pkg.license ?? 'unknown'}`;
    return `=== ${pkg.name}@${pkg.version} (${pkg.license ?? 'see below'})\n\n${text}\n`;
  });
}

const started = Date.now();
rmSync(OUTDIR, { recursive: true, force: true });
mkdirSync(OUTDIR, { recursive: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: [ENTRY],
  outfile: join(OUTDIR, 'modelplane.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  keepNames: true,
  metafile: true,
  legalComments: 'none',
  banner: { js: REQUIRE_SHIM },
  logLevel: 'warning',
  plugins: [lazyCommands],
});
const inputs = result.metafile.inputs;
const forbidden = forbiddenInputs(inputs);
if (forbidden.length > 0) {
  console.error(`build-image: the bundle would hold development modules:\n  ${importChain(inputs, forbidden[0])}`);
  process.exit(1);
}
const assets = copyAssets(inputs);
const notices = licences(inputs);
writeFileSync(join(OUTDIR, 'THIRD_PARTY_LICENSES.txt'), notices.join('\n'));
console.error(
  `build-image: ${Object.keys(inputs).length} modules (${notices.length} npm packages) → ${relative(ROOT, OUTDIR)}/modelplane.mjs` +
    `${assets.length ? ` (+ ${assets.join(', ')})` : ''} in ${Date.now() - started} ms`,
);

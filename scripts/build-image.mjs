// Builds the image's entry (deploy/Dockerfile's build stage): `modelplane` as one ES module, dist/modelplane.mjs,
// bundled by esbuild from src/cli/main.ts with the workspace packages it imports (they ship TypeScript sources).
// npm dependencies stay imports, installed by `npm ci --omit=dev` beside it. Precompiled because a process then
// starts without transpiling hundreds of files and without tsx's loader and source maps in memory (about half
// the start time and a third less memory; the figures are in docs/deploy.md).
//
// What the bundle must not hold fails the build: the dev-only commands (dev, load, status, dashboard) are
// imported lazily and left out (in the image they say so), and no module of the API server or the simulators
// may be bundled. Files a bundled module reads beside itself (`new URL('./x/', import.meta.url)`) are copied to
// the same place relative to the bundle.
//
//   node scripts/build-image.mjs [OUTDIR]     (default dist)
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const OUTDIR = resolve(process.argv[2] ?? join(ROOT, 'dist'));
const ENTRY = 'src/cli/main.ts';
/** folders no module of the image may come from */
const DEV_ONLY = ['packages/apiserver/', 'packages/sim/'];

/** npm packages stay imports; the dev-only commands' lazily imported modules stay out of the bundle */
const externals = {
  name: 'modelplane-externals',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      // only the commands' own lazy imports (src/cli/<command>.ts); any other dynamic import is bundled
      const fromCli = relative(ROOT, args.importer).startsWith('src/cli/');
      if (args.kind === 'dynamic-import' && fromCli && args.path.startsWith('.'))
        return { path: args.path, external: true };
      const bare = !args.path.startsWith('.') && !args.path.startsWith('/') && !args.path.startsWith('node:');
      if (bare && !args.path.startsWith('@modelplane/')) return { path: args.path, external: true };
      return undefined;
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

/** copies what bundled modules read relative to themselves, to the same place relative to the bundle */
function copyAssets(inputs) {
  const copied = new Map();
  for (const input of Object.keys(inputs)) {
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
  logLevel: 'warning',
  plugins: [externals],
});
const inputs = result.metafile.inputs;
const forbidden = Object.keys(inputs).filter((f) => DEV_ONLY.some((d) => f.startsWith(d)));
if (forbidden.length > 0) {
  console.error(`build-image: the bundle would hold development modules:\n  ${importChain(inputs, forbidden[0])}`);
  process.exit(1);
}
const assets = copyAssets(inputs);
console.error(
  `build-image: ${Object.keys(inputs).length} modules → ${relative(ROOT, OUTDIR)}/modelplane.mjs` +
    `${assets.length ? ` (+ ${assets.join(', ')})` : ''} in ${Date.now() - started} ms`,
);

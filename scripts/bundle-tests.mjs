// Compiles test files ahead of the run: one esbuild build over every file to run, with the modules they share
// split into common chunks, so each test process loads a few files of plain JavaScript instead of resolving
// and transforming ~1,800 TypeScript modules through tsx's loader. That loading cost about 2.3 CPU seconds per
// test file, more than most files' tests (docs/testing.md has the figures).
//
// What stays as it runs from the sources: npm packages are left to Node (external; the output folder sits
// under node_modules/.cache so Node finds them from there), and each module's `import.meta.url`, `dirname`
// and `filename` are its own source file's, so files read beside a module (fixtures, generated schemas,
// the llama-stack distributions) are found where they are. Source maps are written beside the output; run with
// NODE_OPTIONS=--enable-source-maps to see TypeScript lines in a failure's stack (it costs ~0.3 s per file).
// Child processes a test starts with `--import tsx` still run from the sources.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js' };

/** npm packages load from node_modules as usual; only the workspace's own packages (TypeScript) are bundled */
const npmExternal = {
  name: 'npm-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@modelplane/') || args.path.startsWith('/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** `import.meta.url` (and dirname, filename) of a repo module stays its source file's, not the chunk's */
const sourceImportMeta = {
  name: 'source-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts|tsx|js|mjs)$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const ext = /\.[a-z]+$/.exec(args.path)[0];
      const values = {
        url: JSON.stringify(pathToFileURL(args.path).href),
        dirname: JSON.stringify(dirname(args.path)),
        filename: JSON.stringify(args.path),
      };
      const contents = text.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_m, k) => values[k]);
      return { contents, loader: LOADERS[ext], resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Builds `files` (repo-relative test files) into a fresh folder under node_modules/.cache and returns the
 * compiled file for each test file, in the same order, and a cleanup. `id` keeps concurrent runs apart.
 */
export async function bundleTests(testFiles, id = String(process.pid)) {
  const files = testFiles.map((f) => relative(ROOT, resolve(f)));
  const outdir = join(ROOT, 'node_modules', '.cache', 'modelplane-tests', id);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: files.map((f) => ({ in: f, out: f.replace(/\.ts$/, '') })),
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'error',
    plugins: [npmExternal, sourceImportMeta],
  });
  return {
    compiled: files.map((f) => join(outdir, f.replace(/\.ts$/, '.mjs'))),
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
